package mcpstdio

import (
	"encoding/json"
)

// withProjectKey adds project_key to a kg_read call that names its project
// by cwd and not by key, when b.ProjectKey finds the folder's key: a team
// server on another machine cannot read the folder, so the bridge, which
// runs beside it, resolves the key (docs/design/team.md#project-keys). Any
// other message, or one it cannot read, goes unchanged.
func (b *Bridge) withProjectKey(msg []byte) []byte {
	if b.ProjectKey == nil {
		return msg
	}
	var top map[string]json.RawMessage
	if json.Unmarshal(msg, &top) != nil {
		return msg
	}
	var method string
	if json.Unmarshal(top["method"], &method) != nil || method != "tools/call" {
		return msg
	}
	var params map[string]json.RawMessage
	if json.Unmarshal(top["params"], &params) != nil {
		return msg
	}
	var name string
	if json.Unmarshal(params["name"], &name) != nil || name != "kg_read" {
		return msg
	}
	var args map[string]json.RawMessage
	if json.Unmarshal(params["arguments"], &args) != nil || args == nil {
		return msg
	}
	var cwd string
	if _, given := args["project_key"]; given || json.Unmarshal(args["cwd"], &cwd) != nil || cwd == "" {
		return msg
	}
	key, ok := b.ProjectKey(cwd)
	if !ok {
		return msg
	}
	args["project_key"], _ = json.Marshal(key)
	var err error
	if params["arguments"], err = json.Marshal(args); err != nil {
		return msg
	}
	if top["params"], err = json.Marshal(params); err != nil {
		return msg
	}
	out, err := json.Marshal(top)
	if err != nil {
		return msg
	}
	return out
}
