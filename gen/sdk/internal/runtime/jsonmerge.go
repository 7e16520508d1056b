package runtime

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// JSONMerge merges the JSON object patch into the JSON object data, as the upstream runtime's
// JSONMerge does with its merge library (which this package does without): the members of two
// objects are merged recursively, members only in patch are added, and any other patch value
// (null included) replaces. A patch that is not an object leaves data as it was. Numbers keep
// the digits they were written with.
func JSONMerge(data, patch json.RawMessage) (json.RawMessage, error) {
	if data == nil {
		data = []byte(`{}`)
	}
	if patch == nil {
		patch = []byte(`{}`)
	}
	var doc, p any
	if err := decodeExact(data, &doc); err != nil {
		return nil, err
	}
	if err := decodeExact(patch, &p); err != nil {
		return nil, err
	}
	if _, ok := p.(map[string]any); !ok {
		return data, nil
	}
	merged, err := mergeValues(doc, p, "")
	if err != nil {
		return nil, err
	}
	return json.Marshal(merged)
}

func decodeExact(b []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	return d.Decode(v)
}

// mergeValues merges patch into doc; path names the member, for errors.
func mergeValues(doc, patch any, path string) (any, error) {
	d, docIsObject := doc.(map[string]any)
	p, patchIsObject := patch.(map[string]any)
	switch {
	case docIsObject && !patchIsObject:
		return nil, fmt.Errorf("merge JSON: patch value must be an object for %q", path)
	case !docIsObject || !patchIsObject:
		return patch, nil
	}
	out := make(map[string]any, len(d)+len(p))
	for k, v := range d {
		out[k] = v
	}
	for k, v := range p {
		if old, ok := d[k]; ok {
			merged, err := mergeValues(old, v, strings.TrimPrefix(path+"."+k, "."))
			if err != nil {
				return nil, err
			}
			v = merged
		}
		out[k] = v
	}
	return out, nil
}
