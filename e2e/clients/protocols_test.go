package clients

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
)

// anthropic is the Messages API (POST /v1/messages) as Claude Code speaks
// it: streamed as server-sent events when the request says "stream".
type anthropic struct{}

func (anthropic) parse(r *http.Request, body []byte) (exchange, bool, bool) {
	if !strings.HasSuffix(r.URL.Path, "/v1/messages") {
		return exchange{}, false, false
	}
	var req struct {
		System   json.RawMessage `json:"system"`
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
		Tools []struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			InputSchema json.RawMessage `json:"input_schema"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return exchange{}, false, true
	}
	var ex exchange
	for _, t := range req.Tools {
		ex.Tools = append(ex.Tools, offeredTool{Name: t.Name, Description: t.Description, Schema: t.InputSchema})
	}
	ctx := []string{textOf(req.System)}
	for _, m := range req.Messages {
		var blocks []struct {
			Type    string          `json:"type"`
			Text    string          `json:"text"`
			Content json.RawMessage `json:"content"`
		}
		// Claude Code sends hook context in user turns and in messages of
		// role "system": everything but the model's own turns is context.
		if json.Unmarshal(m.Content, &blocks) != nil {
			if m.Role != "assistant" {
				ctx = append(ctx, textOf(m.Content))
			}
			continue
		}
		for _, b := range blocks {
			switch {
			case b.Type == "tool_result":
				ex.Results = append(ex.Results, textOf(b.Content))
			case b.Type == "text" && m.Role != "assistant":
				ctx = append(ctx, b.Text)
			}
		}
	}
	ex.Context = strings.Join(ctx, "\n")
	return ex, len(ex.Tools) > 0, true
}

func (anthropic) write(w http.ResponseWriter, _ *http.Request, body []byte, rep reply, seq int) {
	var req struct {
		Model  string `json:"model"`
		Stream bool   `json:"stream"`
	}
	_ = json.Unmarshal(body, &req)
	id := fmt.Sprintf("msg_mock%d", seq)
	usage := map[string]any{"input_tokens": 10, "output_tokens": 5}
	block := map[string]any{"type": "text", "text": rep.Text}
	stop := "end_turn"
	if rep.Tool != "" {
		block = map[string]any{"type": "tool_use", "id": fmt.Sprintf("toolu_mock%d", seq), "name": rep.Tool, "input": rep.Args}
		stop = "tool_use"
	}
	if !req.Stream {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, mustJSON(map[string]any{
			"id": id, "type": "message", "role": "assistant", "model": req.Model,
			"content": []any{block}, "stop_reason": stop, "stop_sequence": nil, "usage": usage,
		}))
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	sse(w, "message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": id, "type": "message", "role": "assistant", "model": req.Model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil, "usage": usage,
	}})
	if rep.Tool != "" {
		start := map[string]any{"type": "tool_use", "id": block["id"], "name": rep.Tool, "input": map[string]any{}}
		sse(w, "content_block_start", map[string]any{"type": "content_block_start", "index": 0, "content_block": start})
		sse(w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
			"delta": map[string]any{"type": "input_json_delta", "partial_json": mustJSON(rep.Args)}})
	} else {
		sse(w, "content_block_start", map[string]any{"type": "content_block_start", "index": 0, "content_block": map[string]any{"type": "text", "text": ""}})
		sse(w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
			"delta": map[string]any{"type": "text_delta", "text": rep.Text}})
	}
	sse(w, "content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
	sse(w, "message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop, "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": 5}})
	sse(w, "message_stop", map[string]any{"type": "message_stop"})
}

// codexEnvelope is the header Codex puts before an MCP tool's output,
// "Wall time: 0.0168 seconds\nOutput:\n": Codex's own, not kg's, so it is
// left out when a result is held against kg's text.
var codexEnvelope = regexp.MustCompile(`^Wall time: [0-9.]+ seconds\nOutput:\n`)

// openaiResponses is the Responses API (POST /v1/responses) as Codex speaks
// it. Codex offers MCP tools grouped in a "namespace" tool, and a call to
// one must name that namespace.
type openaiResponses struct{}

type responsesTool struct {
	Type        string          `json:"type"`
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
	Tools       []responsesTool `json:"tools"`
}

func (openaiResponses) parse(r *http.Request, body []byte) (exchange, bool, bool) {
	if !strings.HasSuffix(r.URL.Path, "/responses") {
		return exchange{}, false, false
	}
	var req struct {
		Instructions string          `json:"instructions"`
		Input        json.RawMessage `json:"input"`
		Tools        []responsesTool `json:"tools"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return exchange{}, false, true
	}
	var ex exchange
	for _, t := range req.Tools {
		if t.Type != "namespace" {
			ex.Tools = append(ex.Tools, offeredTool{Name: t.Name, Description: t.Description, Schema: t.Parameters})
			continue
		}
		for _, sub := range t.Tools {
			ex.Tools = append(ex.Tools, offeredTool{Name: t.Name + "/" + sub.Name, Description: sub.Description, Schema: sub.Parameters})
		}
	}
	ctx := []string{req.Instructions}
	var items []struct {
		Type    string          `json:"type"`
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
		Output  json.RawMessage `json:"output"`
	}
	_ = json.Unmarshal(req.Input, &items)
	for _, it := range items {
		switch it.Type {
		case "function_call_output", "custom_tool_call_output", "mcp_tool_call_output":
			ex.Results = append(ex.Results, codexEnvelope.ReplaceAllString(textOf(it.Output), ""))
		case "message":
			if it.Role != "assistant" {
				ctx = append(ctx, textOf(it.Content))
			}
		}
	}
	ex.Context = strings.Join(ctx, "\n")
	return ex, len(ex.Tools) > 0, true
}

// codexNamespace splits a tool name as the exchange gives it,
// "NAMESPACE/NAME" for a tool offered inside a namespace.
func codexNamespace(full string) (ns, name string) {
	if ns, name, ok := strings.Cut(full, "/"); ok {
		return ns, name
	}
	return "", full
}

func (openaiResponses) write(w http.ResponseWriter, _ *http.Request, _ []byte, rep reply, seq int) {
	w.Header().Set("Content-Type", "text/event-stream")
	id := fmt.Sprintf("resp_mock%d", seq)
	sse(w, "response.created", map[string]any{"type": "response.created", "response": map[string]any{"id": id}})
	var item map[string]any
	if rep.Tool != "" {
		ns, name := codexNamespace(rep.Tool)
		item = map[string]any{"type": "function_call", "id": fmt.Sprintf("fc_mock%d", seq), "call_id": fmt.Sprintf("call_mock%d", seq),
			"name": name, "arguments": mustJSON(rep.Args), "status": "completed"}
		if ns != "" {
			item["namespace"] = ns
		}
	} else {
		item = map[string]any{"type": "message", "id": fmt.Sprintf("msg_mock%d", seq), "role": "assistant", "status": "completed",
			"content": []any{map[string]any{"type": "output_text", "text": rep.Text, "annotations": []any{}}}}
	}
	sse(w, "response.output_item.added", map[string]any{"type": "response.output_item.added", "output_index": 0, "item": item})
	sse(w, "response.output_item.done", map[string]any{"type": "response.output_item.done", "output_index": 0, "item": item})
	sse(w, "response.completed", map[string]any{"type": "response.completed", "response": map[string]any{
		"id": id, "status": "completed", "output": []any{item},
		"usage": map[string]any{"input_tokens": 10, "input_tokens_details": map[string]any{"cached_tokens": 0},
			"output_tokens": 5, "output_tokens_details": map[string]any{"reasoning_tokens": 0}, "total_tokens": 15},
	}})
}

// geminiEnvelope is the wrapping Gemini CLI puts around an MCP tool's text,
// "<untrusted_context>\n…\n</untrusted_context>": Gemini CLI's own, not
// kg's, so it is left out when a result is held against kg's text.
var geminiEnvelope = regexp.MustCompile(`(?s)^<untrusted_context>\n(.*)\n</untrusted_context>$`)

// gemini is the Gemini API's generateContent and streamGenerateContent
// (POST /v1beta/models/MODEL:ACTION) as Gemini CLI speaks it.
type gemini struct{}

func (gemini) parse(r *http.Request, body []byte) (exchange, bool, bool) {
	path := r.URL.Path
	if !strings.HasSuffix(path, ":generateContent") && !strings.HasSuffix(path, ":streamGenerateContent") {
		return exchange{}, false, strings.HasSuffix(path, ":countTokens")
	}
	var req struct {
		SystemInstruction struct {
			Parts []struct {
				Text string `json:"text"`
			} `json:"parts"`
		} `json:"systemInstruction"`
		Contents []struct {
			Role  string `json:"role"`
			Parts []struct {
				Text             string `json:"text"`
				FunctionResponse *struct {
					Name     string          `json:"name"`
					Response json.RawMessage `json:"response"`
				} `json:"functionResponse"`
			} `json:"parts"`
		} `json:"contents"`
		Tools []struct {
			FunctionDeclarations []struct {
				Name                 string          `json:"name"`
				Description          string          `json:"description"`
				Parameters           json.RawMessage `json:"parameters"`
				ParametersJSONSchema json.RawMessage `json:"parametersJsonSchema"`
			} `json:"functionDeclarations"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return exchange{}, false, true
	}
	var ex exchange
	for _, t := range req.Tools {
		for _, f := range t.FunctionDeclarations {
			schema := f.ParametersJSONSchema
			if len(schema) == 0 {
				schema = f.Parameters
			}
			ex.Tools = append(ex.Tools, offeredTool{Name: f.Name, Description: f.Description, Schema: schema})
		}
	}
	var ctx []string
	for _, p := range req.SystemInstruction.Parts {
		ctx = append(ctx, p.Text)
	}
	for _, c := range req.Contents {
		for _, p := range c.Parts {
			switch {
			case p.FunctionResponse != nil:
				ex.Results = append(ex.Results, geminiEnvelope.ReplaceAllString(geminiResult(p.FunctionResponse.Response), "$1"))
			case c.Role == "user":
				ctx = append(ctx, p.Text)
			}
		}
	}
	ex.Context = strings.Join(ctx, "\n")
	return ex, len(ex.Tools) > 0, true
}

// geminiResult is a functionResponse's response as the model reads it: its
// "output" when that is a string, else the whole JSON.
func geminiResult(raw json.RawMessage) string {
	var r struct {
		Output json.RawMessage `json:"output"`
	}
	if json.Unmarshal(raw, &r) == nil && len(r.Output) > 0 {
		var s string
		if json.Unmarshal(r.Output, &s) == nil {
			return s
		}
	}
	return string(raw)
}

func (gemini) write(w http.ResponseWriter, r *http.Request, body []byte, rep reply, _ int) {
	if strings.HasSuffix(r.URL.Path, ":countTokens") {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"totalTokens":10}`)
		return
	}
	part := map[string]any{"text": rep.Text}
	// Gemini CLI's own side questions (is the conversation looping, who
	// speaks next) want JSON of a schema: the least object it accepts.
	var req struct {
		GenerationConfig struct {
			Schema    map[string]any `json:"responseJsonSchema"`
			OldSchema map[string]any `json:"responseSchema"`
		} `json:"generationConfig"`
	}
	_ = json.Unmarshal(body, &req)
	if schema := req.GenerationConfig.Schema; schema != nil {
		part = map[string]any{"text": mustJSON(schemaSample(schema))}
	} else if schema := req.GenerationConfig.OldSchema; schema != nil {
		part = map[string]any{"text": mustJSON(schemaSample(schema))}
	}
	if rep.Tool != "" {
		part = map[string]any{"functionCall": map[string]any{"name": rep.Tool, "args": rep.Args}}
	}
	chunk := map[string]any{
		"candidates":    []any{map[string]any{"content": map[string]any{"role": "model", "parts": []any{part}}, "finishReason": "STOP", "index": 0}},
		"usageMetadata": map[string]any{"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
		"modelVersion":  "gemini-mock",
	}
	if strings.HasSuffix(r.URL.Path, ":streamGenerateContent") {
		w.Header().Set("Content-Type", "text/event-stream")
		sse(w, "", chunk)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = io.WriteString(w, mustJSON(chunk))
}

// schemaSample is the least value of a JSON Schema: an object with its
// required properties, the first of an enum, zero values.
func schemaSample(schema map[string]any) any {
	if enum, ok := schema["enum"].([]any); ok && len(enum) > 0 {
		return enum[0]
	}
	typ, _ := schema["type"].(string)
	switch strings.ToLower(typ) {
	case "object":
		out := map[string]any{}
		props, _ := schema["properties"].(map[string]any)
		required, _ := schema["required"].([]any)
		for _, name := range required {
			n, _ := name.(string)
			sub, _ := props[n].(map[string]any)
			if sub == nil {
				sub = map[string]any{}
			}
			out[n] = schemaSample(sub)
		}
		return out
	case "array":
		return []any{}
	case "number", "integer":
		return 0
	case "boolean":
		return false
	default:
		return ""
	}
}
