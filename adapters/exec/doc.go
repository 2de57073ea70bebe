// Package execaction is the exec action of mcpdecl: a tool that runs a
// program once per call, with an argument vector, never through a shell. Its
// import path ends in /exec; the package is named execaction so that it never
// shadows os/exec.
//
// # The exec block
//
// Its attributes are declared once, by [ActionSpec]; docs/language.md
// lists them with their bounds and defaults.
//
// command is a list: the program, then its arguments. It is an argument
// vector handed to the operating system as is: no shell ever reads it, so an
// argument such as "; rm -rf / #" or "$(id)" reaches the program as that one
// literal argument. The program, command[0], is fixed when the configuration
// loads and resolved then: a name without a slash is looked up in the
// directories of the server's PATH, a relative path with a slash is taken
// relative to the directory of the file, and a program that cannot be found
// or is not executable is a load error. The other elements may be expr("…")
// programs over args; each one yields
//
//   - a string: one argument;
//   - a number or a bool: one argument, written plainly (3, 2.5, true);
//   - a list of those: one argument each, spliced in place, so that
//     expr("args.verbose ? ['-v'] : []") adds an argument or none.
//
// null, a list holding null or a list, an object, and a string holding a NUL
// byte fail the call. Literal elements follow the same rules, checked at
// load time. Programs that take options should be given "--" before
// arguments that come from the call, so that a value starting with "-" is
// never read as an option.
//
// dir is the working directory, fixed at load time, relative to the
// directory of the file; it must exist. It defaults to the directory of the
// file, not to the directory the server was started in.
//
// The program does not see the server's environment, where its secrets live.
// It sees PATH (the server's PATH, or /usr/local/bin:/usr/bin:/bin when the
// server has none) and the variables of env, a map whose values may be
// expr("…") programs: a string, number or bool sets the variable, null leaves
// it out. env may set PATH. With inherit_env = true the program sees the
// server's whole environment as well, env winning over it. Variables such as
// HOME, LANG or TZ are not passed unless env names them:
// env = { HOME = env("HOME") } passes the server's HOME.
//
// stdin is what the program reads on its standard input: a string is sent as
// is, null sends nothing, and any other value is sent as JSON followed by a
// newline. Without stdin the program reads an empty input.
//
// timeout bounds one run of the program. The tool's timeout bounds the whole
// call as well, whichever is shorter wins.
//
// max_output is how many bytes of stdout, and of stderr, are kept; it
// defaults to 1 MiB. A program that writes more to either is stopped at once,
// with whatever it started, so that one that writes without end does not run
// until its timeout; the call then fails with an error that states the limit,
// unless truncate = true, in which case the output is cut at the limit,
// truncated is true, and exit_code is 0: how a run killed at the limit ended
// says nothing of the program.
//
// # Processes
//
// The program runs in a session, and so a process group, of its own, without
// a controlling terminal: a program that wants to prompt on one (for a
// password, say) fails at once instead of waiting. When the call's time runs
// out, or the client cancels it, the whole group is sent SIGTERM (and
// SIGCONT, should it be stopped), then SIGKILL after a grace period of two
// seconds: children and grandchildren are stopped too, even those that
// ignore SIGTERM, and the call returns within that bound. When the program
// exits, whatever it left running in its group is killed. The program is
// always waited for, so none remains a zombie.
//
// A process can leave its process group (setsid, setpgid). On Linux, where
// the server may create cgroups in a cgroup v2 file system, each run is
// started in a cgroup of its own, a child of the server's, that no process
// can leave: when the program exits or is killed, every process in it is
// killed (cgroup.kill), and the cgroup is removed. Elsewhere, the process
// group alone is killed.
//
// A tool of this kind runs at most as many calls at once as the machine has
// CPUs, unless the tool sets max_concurrency.
//
// # What a call returns
//
// The programs that run after the action see
//
//   - exit_code: the exit code, an int; 128+n when the program was killed by
//     signal n, as shells report it;
//   - stdout: per parse, the standard output as text, as printed, final line
//     break included (trim(stdout) drops it) ("text"), as a list of
//     lines without their line breaks ("lines"; a final line break does not
//     make an empty last line), or decoded ("json": whole numbers that fit
//     become ints, others float64);
//   - stderr: the standard error as text;
//   - truncated: whether stdout or stderr was cut at max_output.
//
// Text is cleaned before anyone sees it: terminal escape sequences (colours,
// cursor movements, window titles) and control characters other than
// newline and tab are removed, and bytes that are not UTF-8 become U+FFFD.
// Output decoded as JSON is not altered.
//
// The result's content, when the tool declares neither outputs nor text, is
// the text of stdout.
//
// A non-zero exit code fails the call by default, with a message such as
//
//	command /usr/bin/git exited with code 128: fatal: not a git repository
//
// ending with at most 512 bytes of stderr on one line (of stdout when stderr
// is empty); error_if and error_message may decide otherwise, as the
// variables are still set: error_if = expr("exit_code > 1") accepts grep's
// exit code 1, "nothing found". When parse = "json" and the program failed,
// an stdout that is not JSON is kept as text.
//
// A call fails with an error, whatever error_if says, when the program could
// not be started, timed out, wrote more than max_output without truncate, or
// printed something that is not JSON with parse = "json" (the message says
// at which byte, and quotes the text before it). Messages never hold the
// values of env.
//
// # Windows
//
// On Windows the program runs in a Job Object of its own, created with
// JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE: it is started suspended, put in the
// job, then resumed, so that every process it starts is in the job too,
// and none can leave it. When the call's time runs out, the client cancels
// it, the output passes max_output, or the program exits, the job is
// terminated: everything in it is killed at once, with no grace period
// (Windows has no SIGTERM that every program heeds), and exit_code is 1
// then. A program receives one command line, composed from command with
// the quoting that CommandLineToArgvW and the C runtime undo, so that each
// element arrives as one argument. cmd.exe reads its command line by other
// rules, so a batch file (.bat, .cmd), which Windows runs through cmd.exe,
// is refused at load, and so is cmd.exe itself when an argument comes from
// the call. The environment is built as on Unix (PATH plus env); Go adds
// SYSTEMROOT, which Windows programs need.
//
// Elsewhere than on Unix and Windows, an exec block is a load error.
package execaction
