package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// RefusedError is a path that difftrace will not write through: a link,
// a named pipe or a device that another user may have put there, or a
// named pipe nobody reads.
type RefusedError struct {
	Path   string
	Reason string // what it is and why it is refused, and what to do
}

func (e *RefusedError) Error() string { return e.Path + ": " + e.Reason }

// maxLinks is how many symbolic links Resolve follows in one path, as the
// kernel's MAXSYMLINKS.
const maxLinks = 40

// Resolve returns path with every symbolic link in it resolved, one at a
// time, refusing a link that another user may have planted (see the
// package comment): its error is a *RefusedError naming the link, its
// owner and why. Components that do not exist yet are kept as they are.
// Links inside /proc (/dev/stdout leads to /proc/self/fd/1, whose link
// names no path) are left for the kernel to follow: they are the process's
// own. The result is relative when path is.
func Resolve(path string) (string, error) {
	if path == "" {
		return "", &fs.PathError{Op: "resolve", Path: path, Err: fs.ErrNotExist}
	}
	dest := "" // resolved so far: no links in it
	if filepath.IsAbs(path) {
		dest = "/"
	}
	rest := path
	links := 0
	for rest != "" {
		var comp string
		comp, rest, _ = strings.Cut(rest, "/")
		switch comp {
		case "", ".":
			continue
		case "..":
			switch {
			case dest == "/":
			case dest == "" || filepath.Base(dest) == "..":
				dest = filepath.Join(dest, "..")
			default:
				dest = filepath.Dir(dest)
				if dest == "." {
					dest = ""
				}
			}
			continue
		}
		next := filepath.Join(dest, comp)
		if dest == "/" {
			next = "/" + comp
		}
		st, err := os.Lstat(next)
		if errors.Is(err, fs.ErrNotExist) {
			// Not there yet (the output being made): the rest is
			// created or refused by the kernel as it stands.
			return joinRest(next, rest), nil
		}
		if err != nil {
			return "", err
		}
		if st.Mode()&fs.ModeSymlink == 0 {
			dest = next
			continue
		}
		if inProc(dest) {
			return joinRest(next, rest), nil
		}
		if err := mayFollow(next, st, orDot(dest)); err != nil {
			return "", err
		}
		if links++; links > maxLinks {
			return "", &fs.PathError{Op: "resolve", Path: path, Err: syscall.ELOOP}
		}
		target, err := os.Readlink(next)
		if err != nil {
			return "", err
		}
		if filepath.IsAbs(target) {
			dest = "/"
		}
		rest = joinRest(target, rest)
	}
	return orDot(dest), nil
}

// MkdirAll makes dir and the directories missing above it, as os.MkdirAll
// does, but through no link that Create would refuse (a *RefusedError).
// It checks again once they are made, so a link planted meanwhile in place
// of one of them is refused before anything is written into it.
func MkdirAll(dir string, perm fs.FileMode) error {
	real, err := Resolve(dir)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(real, perm); err != nil {
		return err
	}
	_, err = Resolve(dir)
	return err
}

func joinRest(p, rest string) string {
	if rest == "" {
		return p
	}
	return p + "/" + rest
}

func orDot(dir string) string {
	if dir == "" {
		return "."
	}
	return dir
}

// inProc reports whether dir is /proc or lies under it, where links such
// as /proc/self/fd/1 are the kernel's own and may name no path at all.
func inProc(dir string) bool { return dir == "/proc" || strings.HasPrefix(dir, "/proc/") }

// mayFollow refuses to follow the link at path (st is its Lstat) unless it
// is the user's own or root's, or dir, the directory holding it, is one
// only its owner may change: neither sticky nor writable by the group or
// others.
func mayFollow(path string, st fs.FileInfo, dir string) error {
	uid, ok := owner(st)
	if !ok || uid == os.Geteuid() || uid == 0 {
		return nil
	}
	shared, where, err := sharedDir(dir)
	if err != nil || !shared {
		return err
	}
	return &RefusedError{Path: path, Reason: fmt.Sprintf(
		"a symbolic link owned by %s in %s; difftrace does not follow another user's link there, as it may lead to any file of yours (the rule of the kernel's fs.protected_symlinks): remove the link or write elsewhere",
		userName(uid), where)}
}

// mayWrite refuses a named pipe, socket or device at path (st is its Lstat)
// that another user may have put there: one not the user's own or root's
// in a directory that is sticky or writable by the group or others.
// Whatever difftrace wrote would go to that user.
func mayWrite(path string, st fs.FileInfo) error {
	uid, ok := owner(st)
	if !ok || uid == os.Geteuid() || uid == 0 {
		return nil
	}
	shared, where, err := sharedDir(filepath.Dir(path))
	if err != nil || !shared {
		return err
	}
	return &RefusedError{Path: path, Reason: fmt.Sprintf(
		"a %s owned by %s in %s; difftrace does not write into another user's %s there, as whoever reads it would get the output: remove it or write elsewhere",
		kind(st.Mode()), userName(uid), where, kind(st.Mode()))}
}

// mayReplace refuses to replace a regular file at path (st is its Lstat)
// that belongs to another user in a sticky directory: only root may, and
// the file's mode, which the new file would keep, is that user's choice.
// (In a directory its group may write, replacing a colleague's file is
// allowed, as the kernel allows it.)
func mayReplace(path string, st fs.FileInfo) error {
	uid, ok := owner(st)
	if !ok || uid == os.Geteuid() || uid == 0 {
		return nil
	}
	dst, err := os.Stat(filepath.Dir(path))
	if err != nil || dst.Mode()&fs.ModeSticky == 0 {
		return err
	}
	_, where, err := sharedDir(filepath.Dir(path))
	if err != nil {
		return err
	}
	return &RefusedError{Path: path, Reason: fmt.Sprintf(
		"a file owned by %s in %s; difftrace does not replace another user's file in a sticky directory: remove it or write elsewhere",
		userName(uid), where)}
}

// sharedDir reports whether others may put files in dir, and says how.
func sharedDir(dir string) (bool, string, error) {
	st, err := os.Stat(dir)
	if err != nil {
		return false, "", err
	}
	m := st.Mode()
	var how string
	switch {
	case m&0o002 != 0:
		how = "that everyone may write"
	case m&0o020 != 0:
		how = "that its group may write"
	case m&fs.ModeSticky != 0:
		how = "with the sticky bit"
	default:
		return false, "", nil
	}
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	return true, dir + ", a directory " + how + " (" + modeString(m) + ")", nil
}

// modeString is a directory's mode as ls shows it (drwxrwxrwt).
func modeString(m fs.FileMode) string {
	s := []byte(m.Perm().String())
	s[0] = 'd'
	if m&fs.ModeSticky != 0 {
		if s[9] == 'x' {
			s[9] = 't'
		} else {
			s[9] = 'T'
		}
	}
	return string(s)
}

func owner(st fs.FileInfo) (int, bool) {
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(sys.Uid), true
}

// userName is "name (uid N)", or "uid N" for a user the system does not
// know.
func userName(uid int) string {
	id := strconv.Itoa(uid)
	if u, err := user.LookupId(id); err == nil && u.Username != "" {
		return u.Username + " (uid " + id + ")"
	}
	return "uid " + id
}

func kind(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "named pipe"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeCharDevice != 0:
		return "character device"
	case m&fs.ModeDevice != 0:
		return "block device"
	}
	return "file"
}

// fifoWait is how long Create waits for the reader of a named pipe to open
// it (one started just before difftrace, as in "cat pipe & difftrace … -o
// pipe") before it gives up.
var fifoWait = time.Second

// openDirect opens a pipe or a device at path for writing without ever
// blocking: a named pipe with no reader is an error once fifoWait has
// passed. st is the file checked (Lstat, or Stat for a descriptor's link
// in /proc, which stream says): the file opened must be the same one.
// The descriptor is made blocking again once open, so writes wait for the
// reader as writes to a pipe do. A regular file reached through a
// descriptor's link (-o /dev/stdout > file) is appended to, as the shell
// left it.
func openDirect(path string, st fs.FileInfo, stream bool) (*os.File, error) {
	flags := syscall.O_WRONLY | syscall.O_NONBLOCK | syscall.O_NOCTTY | syscall.O_CLOEXEC
	if !stream {
		flags |= syscall.O_NOFOLLOW
	} else if st.Mode().IsRegular() {
		flags |= syscall.O_APPEND
	}
	deadline := time.Now().Add(fifoWait)
	var fd int
	for pause := time.Millisecond; ; pause = min(2*pause, 50*time.Millisecond) {
		var err error
		fd, err = syscall.Open(path, flags, 0)
		if err == nil {
			break
		}
		if err == syscall.EINTR {
			continue
		}
		if err == syscall.ENXIO && st.Mode()&fs.ModeNamedPipe != 0 {
			if time.Now().Before(deadline) {
				time.Sleep(pause)
				continue
			}
			return nil, &RefusedError{Path: path, Reason: "a named pipe with no reader; start its reader first, or write to a file"}
		}
		if err == syscall.ELOOP && !stream {
			return nil, &RefusedError{Path: path, Reason: "was replaced by a symbolic link while difftrace opened it; write elsewhere"}
		}
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	var opened syscall.Stat_t
	err := syscall.Fstat(fd, &opened)
	if want, ok := st.Sys().(*syscall.Stat_t); err == nil && ok && (opened.Dev != want.Dev || opened.Ino != want.Ino) {
		syscall.Close(fd)
		return nil, &RefusedError{Path: path, Reason: "was replaced by another file while difftrace opened it; write elsewhere"}
	}
	if err == nil {
		err = syscall.SetNonblock(fd, false)
	}
	if err != nil {
		syscall.Close(fd)
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	return os.NewFile(uintptr(fd), path), nil
}
