package redact

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
)

// lineBuffer is the longest line redacted whole; a longer one is redacted
// in pieces of this size (a name cut at a piece's end may stay as it is).
const lineBuffer = 256 << 10

// Stream copies in to out, redacting every line and keeping line endings
// (LF, CRLF, none at the end). It holds one line at a time. In Hadoop
// configuration XML (ozone-site.xml) the <value> of a sensitive <name> is
// replaced too, on the same line or a later one.
func (r *Redactor) Stream(out io.Writer, in io.Reader) (lines int64, err error) {
	if r.br == nil {
		r.br = bufio.NewReaderSize(in, lineBuffer)
		r.bw = bufio.NewWriterSize(out, 256<<10)
	}
	br, bw := r.br, r.bw
	br.Reset(in)
	bw.Reset(out)
	defer br.Reset(nil) // let go of in and out
	defer bw.Reset(nil)
	buf := r.lineBuf[:0]
	defer func() { r.lineBuf = buf[:0] }()
	var xml xmlState
	for {
		line, rerr := br.ReadSlice('\n')
		if len(line) > 0 {
			lines++
			body := line
			end := len(body)
			if end > 0 && body[end-1] == '\n' {
				end--
				if end > 0 && body[end-1] == '\r' {
					end--
				}
			}
			buf = buf[:0]
			buf = r.xmlLine(buf, body[:end], &xml)
			buf = append(buf, body[end:]...)
			if _, err := bw.Write(buf); err != nil {
				return lines, fmt.Errorf("write: %w", err)
			}
		}
		switch {
		case rerr == bufio.ErrBufferFull:
			continue
		case rerr == io.EOF:
			if err := bw.Flush(); err != nil {
				return lines, fmt.Errorf("write: %w", err)
			}
			return lines, nil
		case rerr != nil:
			bw.Flush()
			return lines, rerr
		}
	}
}

// xmlState follows <property> elements across lines.
type xmlState struct {
	sensitive string // the name of the property whose value comes next, when sensitive
	inValue   bool   // inside that property's <value>, which went on past its line
}

var (
	nameOpen   = []byte("<name>")
	nameClose  = []byte("</name>")
	valueOpen  = []byte("<value>")
	valueClose = []byte("</value>")
)

// xmlLine redacts a line, replacing a sensitive property's value.
func (r *Redactor) xmlLine(dst, line []byte, st *xmlState) []byte {
	if st.inValue {
		e := bytes.Index(line, valueClose)
		if e < 0 {
			e = len(line)
		} else {
			st.inValue = false
		}
		dst = r.secretPart(dst, st.sensitive, line[:e])
		if !st.inValue {
			st.sensitive = ""
		}
		return r.Line(dst, line[e:])
	}
	if bytes.IndexByte(line, '<') < 0 {
		return r.Line(dst, line)
	}
	if i := bytes.Index(line, nameOpen); i >= 0 {
		rest := line[i+len(nameOpen):]
		st.sensitive = ""
		if j := bytes.Index(rest, nameClose); j >= 0 {
			if name := string(bytes.TrimSpace(rest[:j])); sensitiveSetting(name) {
				st.sensitive = name
			}
		}
	}
	if st.sensitive == "" {
		return r.Line(dst, line)
	}
	i := bytes.Index(line, valueOpen)
	if i < 0 {
		return r.Line(dst, line)
	}
	v := i + len(valueOpen)
	e := bytes.Index(line[v:], valueClose)
	if e < 0 {
		e = len(line)
		st.inValue = true
	} else {
		e += v
	}
	dst = r.Line(dst, line[:v])
	dst = r.secretPart(dst, st.sensitive, line[v:e])
	if !st.inValue {
		st.sensitive = ""
	}
	return r.Line(dst, line[e:])
}

// secretPart replaces the value in part, keeping the blanks around it.
func (r *Redactor) secretPart(dst []byte, name string, part []byte) []byte {
	val := bytes.TrimSpace(part)
	if len(val) == 0 {
		return append(dst, part...)
	}
	lead := bytes.Index(part, val)
	dst = append(dst, part[:lead]...)
	dst = r.secret(dst, name, val)
	return append(dst, part[lead+len(val):]...)
}
