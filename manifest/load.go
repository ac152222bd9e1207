package manifest

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/escouade-dev/escouade-plugin/internal/safefile"
	"github.com/escouade-dev/escouade-plugin/protocol"
)

// DefaultMaxSize is the largest manifest read when LoadOptions.MaxSize is
// zero. Real manifests are a few kilobytes; the cap keeps a wrong file from
// being read whole.
const DefaultMaxSize = protocol.ManifestBytes

// LoadOptions tunes Load and Parse. The zero value checks no app version and
// reads manifests up to DefaultMaxSize.
type LoadOptions struct {
	// AppVersion is the host's app version, checked against escouade.min.
	// Empty, or not a semantic version: escouade.min is not checked.
	AppVersion string
	// MaxSize is the largest manifest accepted, in bytes; zero means
	// DefaultMaxSize.
	MaxSize int64
}

func (o LoadOptions) maxSize() int64 { return cmp.Or(o.MaxSize, DefaultMaxSize) }

// Load reads and validates dir/escouade-plugin.json. The manifest's Dir is
// dir made absolute. Every refusal is an *Error.
func Load(dir string, opts LoadOptions) (*Manifest, error) {
	path := filepath.Join(dir, FileName)
	data, err := readManifest(dir, path, opts.maxSize())
	if err != nil {
		return nil, err
	}
	m, err := parse(data, path, opts)
	if err != nil {
		return nil, err
	}
	m.Dir = dir
	if abs, err := filepath.Abs(dir); err == nil {
		m.Dir = abs
	}
	return m, nil
}

// Parse validates the bytes of a manifest. Its Dir is left empty. Every
// refusal is an *Error whose File is FileName.
func Parse(data []byte, opts LoadOptions) (*Manifest, error) {
	if int64(len(data)) > opts.maxSize() {
		return nil, tooLarge(FileName, int64(len(data)), opts.maxSize())
	}
	return parse(data, FileName, opts)
}

func parse(data []byte, file string, opts LoadOptions) (*Manifest, error) {
	doc, p := decodeDocument(data)
	if p != nil {
		return nil, &Error{File: file, Problems: []Problem{*p}}
	}
	schema, err := loadSchema()
	if err != nil {
		return nil, err // a broken build of the host, not a fault of the plugin
	}
	if problems := mergeProblems(schema.problems(doc), ruleProblems(doc, opts.AppVersion)); len(problems) > 0 {
		return nil, &Error{File: file, Problems: problems}
	}
	var m Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, &Error{File: file, Problems: []Problem{unmarshalProblem(err)}}
	}
	return &m, nil
}

// mergeProblems keeps a rule's problem over the schema's at the same
// pointer, then orders them as the fields appear.
func mergeProblems(fromSchema, fromRules []Problem) []Problem {
	ruled := make(map[string]bool, len(fromRules))
	for _, p := range fromRules {
		ruled[p.Pointer] = true
	}
	out := slices.Clone(fromRules)
	for _, p := range fromSchema {
		if !ruled[p.Pointer] {
			out = append(out, p)
		}
	}
	slices.SortFunc(out, func(a, b Problem) int {
		return cmp.Or(comparePointers(a.Pointer, b.Pointer), cmp.Compare(a.Message, b.Message))
	})
	return slices.Compact(out)
}

// unmarshalProblem reports a value the schema let through that does not fit
// its Go field, such as 1e3 for an integer limit.
func unmarshalProblem(err error) Problem {
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) && typeErr.Field != "" {
		return Problem{
			Pointer: "/" + strings.ReplaceAll(typeErr.Field, ".", "/"),
			Message: fmt.Sprintf("%s does not fit %s", typeErr.Value, typeErr.Type),
			Fix:     "write a plain whole number, without fraction or exponent",
		}
	}
	return Problem{Message: "the manifest could not be read: " + err.Error()}
}

// readManifest reads the manifest file, turning every failure into an
// *Error that says what to do.
func readManifest(dir, path string, maxSize int64) ([]byte, error) {
	if p, cause := checkFolder(dir); p != nil {
		return nil, &Error{File: path, Problems: []Problem{*p}, cause: cause}
	}
	data, err := safefile.Read(path, FileName, maxSize)
	if err != nil {
		return nil, readError(dir, path, err)
	}
	return data, nil
}

// readError says why the manifest was not read: missing, not a regular
// file (a named pipe, a device...), too large, or refused by the system.
func readError(dir, path string, err error) error {
	var refused *safefile.Error
	switch {
	case errors.Is(err, safefile.ErrNotRegular) && errors.As(err, &refused):
		return &Error{File: path, Problems: []Problem{{
			Message: "is " + refused.What + "; the host reads only regular files",
			Fix:     "make " + FileName + " a file holding the manifest",
		}}}
	case errors.Is(err, safefile.ErrTooLarge) && errors.As(err, &refused):
		return tooLarge(path, refused.Size, refused.Limit)
	case errors.As(err, &refused) && refused.Err != nil:
		err = refused.Err
	}
	return openError(dir, path, err)
}

// checkFolder catches the common slips of naming the plugin folder: one
// that does not exist, or the manifest file itself.
func checkFolder(dir string) (*Problem, error) {
	info, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return &Problem{
			Message: "the plugin folder " + dir + " does not exist",
			Fix:     "give the folder that holds " + FileName,
		}, err
	case err == nil && !info.IsDir():
		return &Problem{
			Message: dir + " is a file, not a plugin folder",
			Fix:     "give the folder that holds " + FileName,
		}, nil
	}
	return nil, nil // other failures show when opening the manifest
}

func openError(dir, path string, err error) error {
	p := Problem{Message: "cannot read the manifest: " + err.Error(), Fix: "check the file's permissions"}
	if errors.Is(err, fs.ErrNotExist) {
		p = Problem{
			Message: "no such file: a plugin folder needs " + FileName + " at its root",
			Fix:     "create " + FileName + " in " + dir,
		}
	}
	return &Error{File: path, Problems: []Problem{p}, cause: err}
}

func tooLarge(file string, size, maxSize int64) error {
	return &Error{File: file, Problems: []Problem{{
		Message: fmt.Sprintf("the file is %s; the limit is %s", safefile.SizeText(size, maxSize), safefile.LimitText(maxSize)),
		Fix:     "keep the manifest to its declarations; put data in other files of the folder",
	}}}
}
