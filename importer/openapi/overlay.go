package openapi

import "github.com/mcpdecl/mcpdecl/importer/overlay"

// ApplyOverlay applies an OpenAPI Overlay 1.0 document to the document,
// before import, so that curation (names, descriptions, removed
// operations) survives a new version of the document; see [overlay.Apply].
// unmatched are the actions whose target selects nothing, for a warning.
func (s *Spec) ApplyOverlay(data []byte, location string) (unmatched []string, err error) {
	root, unmatched, err := overlay.Apply(s.Root, data, location)
	if err != nil {
		return nil, err
	}
	s.Root = root
	return unmatched, nil
}
