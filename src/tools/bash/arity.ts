/**
 * How many leading words name "the command" a person would approve, as OpenCode reckons it:
 * `git commit -m x` is `git commit`, `npm run build` is `npm run build`, `ls -la` is `ls`.
 * The longest listed prefix wins; a command not listed counts its name only. Approving "always"
 * approves that prefix followed by anything (`git commit *`).
 */
const ARITY: Record<string, number> = {
  // One word: the command itself.
  cat: 1,
  cd: 1,
  chmod: 1,
  chown: 1,
  cp: 1,
  echo: 1,
  export: 1,
  grep: 1,
  head: 1,
  kill: 1,
  ln: 1,
  ls: 1,
  mkdir: 1,
  mv: 1,
  ps: 1,
  pwd: 1,
  rg: 1,
  rm: 1,
  rmdir: 1,
  sleep: 1,
  tail: 1,
  touch: 1,
  unset: 1,
  wc: 1,
  which: 1,
  // Two words: a tool and its subcommand, or an interpreter and its script.
  ".": 2,
  bash: 2,
  brew: 2,
  bun: 2,
  cargo: 2,
  deno: 2,
  docker: 2,
  git: 2,
  go: 2,
  gradle: 2,
  helm: 2,
  kubectl: 2,
  make: 2,
  mvn: 2,
  node: 2,
  npm: 2,
  npx: 2,
  pip: 2,
  pip3: 2,
  pnpm: 2,
  poetry: 2,
  python: 2,
  python3: 2,
  sh: 2,
  source: 2,
  systemctl: 2,
  terraform: 2,
  uv: 2,
  yarn: 2,
  zsh: 2,
  // Three words: a subcommand with its own subcommands, or a script runner and the script.
  aws: 3,
  "bun run": 3,
  "bun x": 3,
  "cargo add": 3,
  "cargo run": 3,
  "deno task": 3,
  "docker compose": 3,
  "docker container": 3,
  "docker image": 3,
  "docker network": 3,
  "docker volume": 3,
  gcloud: 3,
  gh: 3,
  "git config": 3,
  "git remote": 3,
  "git stash": 3,
  "kubectl rollout": 3,
  "npm exec": 3,
  "npm init": 3,
  "npm run": 3,
  "npm view": 3,
  "pnpm dlx": 3,
  "pnpm exec": 3,
  "pnpm run": 3,
  "uv run": 3,
  "yarn dlx": 3,
  "yarn run": 3,
}

/** The number of words that name the command `words` starts with (`git commit -m x`: 2). */
export function arityOf(words: readonly string[]): number {
  for (let length = Math.min(words.length, 3); length > 0; length--) {
    const arity = ARITY[words.slice(0, length).join(" ")]
    if (arity !== undefined) return arity
  }
  return 1
}
