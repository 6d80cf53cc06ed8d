/**
 * How many leading words name "the command" a person would approve, as OpenCode reckons it:
 * `git commit -m x` is `git commit`, `npm run build` is `npm run build`, `ls -la` is `ls`.
 * The longest listed prefix wins; a command not listed counts its name only. Approving "always"
 * approves that prefix followed by anything (`git commit *`).
 *
 * The table holds every command of OpenCode's (`permission/arity.ts`), with its arity, plus a few
 * it leaves out. A longer key is listed only when its arity differs from its shorter one's.
 * Wrappers (`sudo`, `nohup`, `xargs`…) are not here: they are seen through first (wrappers.ts).
 */
export const ARITY: Readonly<Record<string, number>> = {
  // Files, processes and shell builtins: the command alone.
  cat: 1,
  cd: 1,
  chmod: 1,
  chown: 1,
  cp: 1,
  echo: 1,
  env: 1,
  export: 1,
  grep: 1,
  head: 1,
  kill: 1,
  killall: 1,
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

  // Interpreters and the script they run: approving `python *` would approve any script. So for
  // `source` and `.` too, where OpenCode has 1.
  ".": 2,
  bash: 2,
  node: 2,
  python: 2,
  python3: 2,
  sh: 2,
  source: 2,
  zsh: 2,

  // JavaScript: the package managers, with the script or package they run as a third word.
  bun: 2,
  "bun run": 3,
  "bun x": 3,
  deno: 2,
  "deno task": 3,
  npm: 2,
  "npm exec": 3,
  "npm init": 3,
  "npm run": 3,
  "npm view": 3,
  npx: 2,
  pnpm: 2,
  "pnpm dlx": 3,
  "pnpm exec": 3,
  "pnpm run": 3,
  yarn: 2,
  "yarn dlx": 3,
  "yarn run": 3,
  ng: 2,
  nvm: 2,
  nx: 2,
  turbo: 2,
  volta: 2,

  // Python.
  pip: 2,
  pip3: 2,
  pipenv: 2,
  poetry: 2,
  pyenv: 2,
  uv: 2,
  "uv run": 3,

  // Ruby and PHP.
  composer: 2,
  rake: 2,
  rbenv: 2,
  wp: 2,

  // Compiled languages and build tools.
  bazel: 2,
  cargo: 2,
  "cargo add": 3,
  "cargo run": 3,
  cmake: 2,
  go: 2,
  gradle: 2,
  hugo: 2,
  make: 2,
  mvn: 2,
  rustup: 2,
  swift: 2,

  // git and GitHub; `gh` names a resource, then an action (`gh pr list`).
  gh: 3,
  git: 2,
  "git config": 3,
  "git remote": 3,
  "git stash": 3,
  // rtk runs other CLIs with their output shortened (`rtk git status`).
  rtk: 2,
  "rtk git": 3,

  // Containers.
  crictl: 2,
  docker: 2,
  "docker builder": 3,
  "docker compose": 3,
  "docker container": 3,
  "docker image": 3,
  "docker network": 3,
  "docker volume": 3,
  podman: 2,
  "podman container": 3,
  "podman image": 3,

  // Kubernetes.
  eksctl: 2,
  "eksctl create": 3,
  helm: 2,
  kind: 2,
  "kind create": 3,
  kubectl: 2,
  "kubectl kustomize": 3,
  "kubectl rollout": 3,
  kustomize: 2,
  minikube: 2,
  skaffold: 2,

  // Clouds and hosting; the big clouds name a service, then an action (`aws s3 ls`).
  aws: 3,
  az: 3,
  doctl: 3,
  gcloud: 3,
  cdk: 2,
  cf: 2,
  firebase: 2,
  flyctl: 2,
  heroku: 2,
  mc: 2,
  "mc admin": 3,
  pulumi: 2,
  "pulumi stack": 3,
  serverless: 2,
  sfdx: 3,
  sls: 2,
  sst: 2,
  vercel: 2,

  // HashiCorp.
  consul: 2,
  "consul kv": 3,
  terraform: 2,
  "terraform workspace": 3,
  vault: 2,
  "vault auth": 3,
  "vault kv": 3,

  // Databases.
  mongosh: 2,
  mysql: 2,
  psql: 2,
  "redis-cli": 2,

  // System and network administration.
  brew: 2,
  ip: 2,
  "ip addr": 3,
  "ip link": 3,
  "ip netns": 3,
  "ip route": 3,
  openssl: 2,
  "openssl req": 3,
  "openssl x509": 3,
  systemctl: 2,
  tmux: 2,
  ufw: 2,
}

// The longest key, in words; a longer prefix cannot match.
const LONGEST = Math.max(...Object.keys(ARITY).map((key) => key.split(" ").length))

/** The number of words that name the command `words` starts with (`git commit -m x`: 2). */
export function arityOf(words: readonly string[]): number {
  for (let length = Math.min(words.length, LONGEST); length > 0; length--) {
    const key = words.slice(0, length).join(" ")
    // Own keys only: `toString x` must not find Object.prototype.toString.
    if (Object.hasOwn(ARITY, key)) return ARITY[key]!
  }
  return 1
}
