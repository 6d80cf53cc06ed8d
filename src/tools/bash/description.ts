/** What the model reads about the bash tool. */
export function bashDescription(limits: { defaultTimeoutMs: number; maxTimeoutMs: number }): string {
  return `Runs a shell command (bash, or sh where bash is missing) in the project directory and returns its output (stdout and stderr together).

Use it for terminal work: git, package managers, builds, tests, running programs. Do not use it to read, write, edit, search or list files: the read, write, edit, grep, glob and list tools do that better and ask fewer permissions.

- command: the command line. Quote paths that contain spaces ("my dir/file"). Chain dependent commands with && (git add . && git commit -m "msg"); use ; only when a failure should not stop the rest. Commands that wait for input (editors, pagers, git rebase -i) hang until the timeout: avoid them.
- description: what the command does, in 5-10 words ("Lists files in current directory", "Installs package dependencies").
- workdir: the directory to run in, instead of cd <dir> && <command>. Defaults to the project directory.
- timeout: in milliseconds; default ${limits.defaultTimeoutMs} ms, at most ${limits.maxTimeoutMs} ms. When it passes, the command and everything it started are killed.

Each command in the line needs permission (pipes, && lists, subshells and $(...) included), and paths outside the project directory need permission too.

Long output is cut to its last lines; the full output is saved to a file whose path is given, which you can read with offset/limit or search with grep instead of running the command again. Do not pipe into head or tail to shorten output. A nonzero exit code, a timeout or an abort is stated after the output.`
}
