package execaction

import (
	"strings"
	"testing"
)

// The rules that keep a call's arguments from becoming commands on
// Windows, tested on every system: windowsRefusal is pure.
func TestWindowsRefusal(t *testing.T) {
	for _, tt := range []struct {
		path    string
		dynamic bool
		refused string // a word the reason holds; "" when the program may run
	}{
		{`C:\Tools\jq.exe`, true, ""},
		{`C:\Tools\jq.exe`, false, ""},
		{`C:\Windows\System32\git.EXE`, true, ""},
		// Batch files run through cmd.exe: refused, however the name is
		// spelled for the file system.
		{`C:\scripts\deploy.bat`, false, "batch file"},
		{`C:\scripts\deploy.BAT`, true, "batch file"},
		{`C:\scripts\deploy.cmd`, true, "batch file"},
		{`C:\scripts\deploy.Cmd.`, true, "batch file"},
		{`C:\scripts\deploy.bat . .`, true, "batch file"},
		{`C:\scripts\deploy.bat::$DATA`, true, "batch file"},
		{`C:\scripts\deploy.bat::$data.`, true, "batch file"},
		{`C:/scripts/deploy.bat`, true, "batch file"},
		{`C:deploy.bat`, false, "batch file"},
		{`deploy.bat`, false, "batch file"},
		// cmd.exe: with fixed arguments the configuration's author wrote the
		// whole command line; with a call's values it is refused.
		{`C:\Windows\System32\cmd.exe`, false, ""},
		{`C:\Windows\System32\cmd.exe`, true, "cmd.exe"},
		{`C:\Windows\System32\CMD.EXE`, true, "cmd.exe"},
		{`C:\Windows\System32\cmd.exe.`, true, "cmd.exe"},
		{`C:\Windows\System32\cmd`, true, "cmd.exe"},
		{`C:\Windows\System32\command.com`, true, "cmd.exe"},
		// Names that only look alike run.
		{`C:\Tools\cmdtool.exe`, true, ""},
		{`C:\Tools\bat.exe`, true, ""},
		{`C:\Tools\x.bat.exe`, true, ""},
		{`C:\scripts.bat\tool.exe`, true, ""},
	} {
		why := windowsRefusal(tt.path, tt.dynamic)
		switch {
		case tt.refused == "" && why != "":
			t.Errorf("windowsRefusal(%q, %v) = %q, want the program to run", tt.path, tt.dynamic, why)
		case tt.refused != "" && !strings.Contains(why, tt.refused):
			t.Errorf("windowsRefusal(%q, %v) = %q, want a refusal that says %q", tt.path, tt.dynamic, why, tt.refused)
		}
	}
}
