package bundle

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// walkInputs visits the inputs until the walk is done; workers read the
// starts of files at once in a walk ordered by time.
func (w *walker) walkInputs(inputs []string, workers int) {
	if w.opt.FirstTime != nil {
		w.heads = w.readHeads(workers)
		defer w.heads.wait() // also when the walk is done early
	}
	for _, in := range inputs {
		if w.done() {
			return
		}
		w.walkInput(in)
	}
	if w.opt.FirstTime != nil {
		w.walkListed()
	}
}

// walkInput visits one input: a directory tree or a file (an archive or not).
// An input that is a symbolic link is followed: the user named it.
func (w *walker) walkInput(in string) {
	fi, err := os.Stat(in)
	if err != nil {
		w.problem(in, openError("input", err))
		return
	}
	switch {
	case fi.IsDir():
		root, err := filepath.EvalSymlinks(in)
		if err != nil {
			w.problem(in, openError("input", err))
			return
		}
		class := filepath.Base(filepath.Clean(in))
		if class == "." || class == ".." || class == string(filepath.Separator) {
			class = ""
		}
		w.walkDir(in, root, class)
	case fi.Mode().IsRegular():
		w.file(in, filepath.Base(in), "", fi)
	default:
		w.problem(in, notRegular(fi.Mode()))
	}
}

// walkDir visits a directory in name order. root is the input's resolved
// path: symbolic links are followed nowhere, and reported when they point
// outside it (those inside point at files the walk reads anyway).
func (w *walker) walkDir(dir, root, class string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		w.problem(dir, openError("directory", err))
	}
	for _, e := range entries {
		if w.done() {
			return
		}
		p := filepath.Join(dir, e.Name())
		cls := path.Join(class, e.Name())
		mode := e.Type()
		switch {
		case mode&fs.ModeSymlink != 0:
			w.symlink(p, root)
		case mode.IsDir():
			w.walkDir(p, root, cls)
		case mode.IsRegular():
			fi, err := e.Info()
			if err != nil {
				w.problem(p, openError("file", err))
				continue
			}
			w.file(dir, class, e.Name(), fi)
		default:
			w.problem(p, notRegular(mode))
		}
	}
}

func (w *walker) symlink(p, root string) {
	target, err := filepath.EvalSymlinks(p)
	if err != nil {
		link, _ := os.Readlink(p)
		w.problem(p, "broken symbolic link (to "+link+"): skipped")
		return
	}
	if rel, err := filepath.Rel(root, target); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return // read where it points
	}
	w.problem(p, "symbolic link to "+target+", outside the input: skipped (name the target as an input to read it)")
}

// file visits the file name in the directory of display path dir and
// class class (the input file dir itself when name is ""), or lists it in a
// walk ordered by time.
func (w *walker) file(dir, class, name string, fi fs.FileInfo) {
	n := placed(dir, class, name)
	n.size, n.mod = fi.Size(), fi.ModTime()
	if w.opt.FirstTime != nil {
		w.heads.next <- headJob{i: len(w.listing.files), n: n}
		w.listing.add(dir, class, name, fi)
		return
	}
	w.visitFile(n)
}

// placed returns the node of the file name in the directory of display
// path dir and class class, or of the input file dir itself when name is "".
func placed(dir, class, name string) node {
	n := node{path: dir, class: class}
	if name != "" {
		n.path, n.class = filepath.Join(dir, name), path.Join(class, name)
	}
	n.name = filepath.Base(n.path)
	return n
}

// visitFile visits a file on disk, or dispatches it in a WalkParallel.
func (w *walker) visitFile(n node) {
	if w.par != nil {
		w.par.dispatch(n)
		return
	}
	w.visitPath(n)
}

// visitPath opens a file on disk and visits its content.
func (w *walker) visitPath(n node) {
	f, err := openFile(n.path)
	if err != nil {
		w.problem(n.path, openError("file", err))
		return
	}
	defer f.Close()
	w.visitStream(n, f, &sizedReaderAt{r: f, size: n.size}, 0)
}

func openError(what string, err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return what + " not found"
	case errors.Is(err, fs.ErrPermission):
		return what + " not readable (permission denied): skipped"
	}
	return what + " not readable (" + err.Error() + "): skipped"
}

func notRegular(m fs.FileMode) string {
	kind := "special file"
	switch {
	case m&fs.ModeNamedPipe != 0:
		kind = "named pipe"
	case m&fs.ModeSocket != 0:
		kind = "socket"
	case m&fs.ModeDevice != 0:
		kind = "device"
	}
	return "not a regular file (" + kind + "): skipped"
}
