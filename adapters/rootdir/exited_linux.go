package rootdir

import (
	"bytes"
	"os"
	"strconv"
)

// exited reports whether pid has exited but is not reaped yet: its state
// in /proc/<pid>/stat, the field after the command name in parentheses, is
// Z (zombie) or X (dead).
func exited(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false // no /proc: kill(pid, 0) has answered already
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 || i+2 >= len(b) {
		return false
	}
	state := b[i+2]
	return state == 'Z' || state == 'X'
}
