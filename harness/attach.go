package harness

import (
	"fmt"
	"net/http"
	"path/filepath"
	"strings"

	"github.com/escouade-dev/escouade-plugin/acp"
	"github.com/escouade-dev/escouade-plugin/internal/safefile"
)

// MaxAttachmentBytes bounds a file given with a prompt: sent as base64 on
// one line, it stays well under the lines an agent is expected to read.
const MaxAttachmentBytes = 10 << 20

// PromptFiles sends a user message with files: images go as image blocks
// where caps.images is true, PDFs as embedded resources where caps.pdf is
// true. What the harness does not say it takes is refused with a sentence
// and nothing is sent (docs/harness.md#the-acp-object: what is not said, it does not do).
// A relative path is taken from the agent's folder.
func (s *Session) PromptFiles(text string, paths []string) error {
	files := make([]acp.Attachment, 0, len(paths))
	for _, p := range paths {
		f, err := s.attachment(p)
		if err != nil {
			return err
		}
		files = append(files, f)
	}
	return s.post(func() { s.take(s.client.PromptWith(text, files)) })
}

// attachment reads one file to give with a prompt, refusing a kind the
// harness does not take.
func (s *Session) attachment(path string) (acp.Attachment, error) {
	if !filepath.IsAbs(path) {
		path = filepath.Join(s.opts.Cwd, path)
	}
	data, err := readAttachment(path)
	if err != nil {
		return acp.Attachment{}, err
	}
	mime := sniffType(data)
	a := acp.Attachment{Path: path, MimeType: mime, Data: data}
	name := s.harness.Name.In("en")
	switch {
	case a.IsImage() && !s.harness.Caps.Has(CapImages):
		return a, fmt.Errorf("the prompt was not sent: it gives an image (%s), and %s does not take images (its caps.images is not true)", filepath.Base(path), name)
	case mime == "application/pdf" && !s.harness.Caps.Has(CapPDF):
		return a, fmt.Errorf("the prompt was not sent: it gives a PDF (%s), and %s does not take PDFs (its caps.pdf is not true)", filepath.Base(path), name)
	case !a.IsImage() && mime != "application/pdf":
		return a, fmt.Errorf("the prompt was not sent: %s is %s, and a prompt gives only images and PDFs (put a text file's words in the prompt)", filepath.Base(path), mime)
	}
	return a, nil
}

// readAttachment reads a regular file of at most MaxAttachmentBytes,
// through the host's one reader of files it did not write: a named pipe
// is refused at once instead of hanging the console.
func readAttachment(path string) ([]byte, error) {
	data, err := safefile.Read(path, filepath.Base(path), MaxAttachmentBytes)
	if err != nil {
		return nil, fmt.Errorf("the prompt was not sent: %v (give an image or a PDF file)", err)
	}
	return data, nil
}

// sniffType tells a file's type by its first bytes, as a browser would,
// so that a name does not make a text an image.
func sniffType(data []byte) string {
	mime, _, _ := strings.Cut(http.DetectContentType(data), ";")
	return strings.TrimSpace(mime)
}
