package apijson

import (
	"encoding/json"
	"errors"

	"github.com/kg-memory/kg/domain"
)

// DecodeError turns an error of decoding JSON into an invalid-argument
// error that names the field at fault within item at ("" for the body
// itself, "nodes[3]" for an item of a list), e.g. `gist: must be a string,
// not a JSON number`.
func DecodeError(at string, err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		field := te.Field
		switch {
		case at != "" && field != "":
			field = at + "." + field
		case at != "":
			field = at
		case field == "":
			field = "body"
		}
		return domain.Invalidf(field, "must be %s, not a JSON %s", jsonType(te.Type.Kind().String()), te.Value)
	}
	if at == "" {
		at = "body"
	}
	return domain.Invalidf(at, "is not valid JSON: %v", err)
}

// jsonType names a Go kind as the JSON type a client must send.
func jsonType(kind string) string {
	switch kind {
	case "string":
		return "a string"
	case "slice", "array":
		return "a list"
	case "struct", "map":
		return "an object"
	case "float64", "float32":
		return "a number"
	case "int", "int8", "int16", "int32", "int64":
		return "a whole number"
	case "uint", "uint8", "uint16", "uint32", "uint64":
		return "a whole number of at least 0"
	case "bool":
		return "true or false"
	}
	return "another JSON type"
}
