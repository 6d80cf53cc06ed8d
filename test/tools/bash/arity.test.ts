import { beforeAll, describe, expect, it } from "vitest"
import { ARITY, arityOf } from "../../../src/tools/bash/arity.js"
import { createShellParser } from "../../../src/tools/bash/parser.js"
import { bashPatterns } from "../../../src/tools/bash/patterns.js"
import type { Parse } from "../../../src/tools/bash/script.js"

let parse: Parse
beforeAll(async () => {
  parse = await createShellParser()()
})

const always = (command: string) => bashPatterns(command, parse(command), parse).always

/** A realistic command for every entry of the table, by family, and what "always" approves for it. */
const FAMILIES: Record<string, [command: string, approves: string][]> = {
  "files, processes and builtins": [
    ["cat README.md", "cat *"],
    ["cd src", "cd *"],
    ["chmod 755 build.sh", "chmod *"],
    ["chown user:group file.txt", "chown *"],
    ["cp a.txt b.txt", "cp *"],
    ["echo hello", "echo *"],
    ["env", "env *"],
    ["export NODE_ENV=production", "export *"],
    ["grep -rn TODO src", "grep *"],
    ["head -n 20 log.txt", "head *"],
    ["kill 1234", "kill *"],
    ["killall node", "killall *"],
    ["ln -s target link", "ln *"],
    ["ls -la", "ls *"],
    ["mkdir -p dist", "mkdir *"],
    ["mv old.txt new.txt", "mv *"],
    ["ps aux", "ps *"],
    ["pwd", "pwd *"],
    ["rg TODO src", "rg *"],
    ["rm -rf dist", "rm *"],
    ["rmdir empty", "rmdir *"],
    ["sleep 5", "sleep *"],
    ["tail -f log.txt", "tail *"],
    ["touch notes.md", "touch *"],
    ["unset NODE_ENV", "unset *"],
    ["wc -l src/index.ts", "wc *"],
    ["which node", "which *"],
  ],
  interpreters: [
    [". ./env.sh", ". ./env.sh *"],
    ["bash deploy.sh staging", "bash deploy.sh *"],
    ["node server.js --port 3000", "node server.js *"],
    ["python manage.py migrate", "python manage.py *"],
    ["python3 train.py --epochs 3", "python3 train.py *"],
    ["sh install.sh", "sh install.sh *"],
    ["source .venv/bin/activate", "source .venv/bin/activate *"],
    ["zsh setup.zsh", "zsh setup.zsh *"],
  ],
  "npm, pnpm, yarn, bun and deno": [
    ["bun install", "bun install *"],
    ["bun run dev", "bun run dev *"],
    ["bun x vite build", "bun x vite *"],
    ["deno run server.ts", "deno run *"],
    ["deno task dev", "deno task dev *"],
    ["npm install react", "npm install *"],
    ["npm exec vite build", "npm exec vite *"],
    ["npm init vue@latest", "npm init vue@latest *"],
    ["npm run build -- --watch", "npm run build *"],
    ["npm view react version", "npm view react *"],
    ["npx vite build", "npx vite *"],
    ["pnpm install", "pnpm install *"],
    ["pnpm dlx create-next-app my-app", "pnpm dlx create-next-app *"],
    ["pnpm exec vitest run", "pnpm exec vitest *"],
    ["pnpm run dev", "pnpm run dev *"],
    ["yarn add react", "yarn add *"],
    ["yarn dlx create-react-app my-app", "yarn dlx create-react-app *"],
    ["yarn run test", "yarn run test *"],
  ],
  "JavaScript tools": [
    ["ng generate component home", "ng generate *"],
    ["nvm use 18", "nvm use *"],
    ["nx build web", "nx build *"],
    ["turbo run build", "turbo run *"],
    ["volta install node", "volta install *"],
  ],
  python: [
    ["pip install numpy", "pip install *"],
    ["pip3 install -r requirements.txt", "pip3 install *"],
    ["pipenv install flask", "pipenv install *"],
    ["poetry add requests", "poetry add *"],
    ["pyenv install 3.11", "pyenv install *"],
    ["uv sync", "uv sync *"],
    ["uv run pytest -x", "uv run pytest *"],
  ],
  "ruby and php": [
    ["composer require laravel/framework", "composer require *"],
    ["rake db:migrate", "rake db:migrate *"],
    ["rbenv install 3.2.0", "rbenv install *"],
    ["wp plugin install akismet", "wp plugin *"],
  ],
  "cargo, go and build tools": [
    ["bazel build //app:server", "bazel build *"],
    ["cargo build --release", "cargo build *"],
    ["cargo add tokio --features full", "cargo add tokio *"],
    ["cargo run server --port 8080", "cargo run server *"],
    ["cmake .. -G Ninja", "cmake .. *"],
    ["go test ./...", "go test *"],
    ["gradle build", "gradle build *"],
    ["hugo new site blog", "hugo new *"],
    ["make build", "make build *"],
    ["mvn compile", "mvn compile *"],
    ["rustup update stable", "rustup update *"],
    ["swift build -c release", "swift build *"],
  ],
  "git, gh and rtk": [
    ["gh pr list --state open", "gh pr list *"],
    ["git commit -m 'fix the bug'", "git commit *"],
    ["git config user.name Ada", "git config user.name *"],
    ["git remote add origin git@github.com:acme/app.git", "git remote add *"],
    ["git stash pop", "git stash pop *"],
    ["rtk ls src", "rtk ls *"],
    ["rtk git status", "rtk git status *"],
  ],
  "docker, podman and crictl": [
    ["crictl ps -a", "crictl ps *"],
    ["docker run nginx", "docker run *"],
    ["docker builder prune -f", "docker builder prune *"],
    ["docker compose up -d", "docker compose up *"],
    ["docker container ls", "docker container ls *"],
    ["docker image prune", "docker image prune *"],
    ["docker network inspect bridge", "docker network inspect *"],
    ["docker volume ls", "docker volume ls *"],
    ["podman run alpine", "podman run *"],
    ["podman container ls", "podman container ls *"],
    ["podman image prune", "podman image prune *"],
  ],
  "kubectl and kubernetes tools": [
    ["eksctl get clusters", "eksctl get *"],
    ["eksctl create cluster -f cluster.yaml", "eksctl create cluster *"],
    ["helm install api ./chart", "helm install *"],
    ["kind delete cluster", "kind delete *"],
    ["kind create cluster --name dev", "kind create cluster *"],
    ["kubectl get pods -n default", "kubectl get *"],
    ["kubectl kustomize overlays/dev", "kubectl kustomize overlays/dev *"],
    ["kubectl rollout restart deploy/api", "kubectl rollout restart *"],
    ["kustomize build overlays/prod", "kustomize build *"],
    ["minikube start", "minikube start *"],
    ["skaffold dev", "skaffold dev *"],
  ],
  "aws, az, gcloud and doctl": [
    ["aws s3 ls s3://bucket", "aws s3 ls *"],
    ["az storage blob list --container-name logs", "az storage blob *"],
    ["doctl kubernetes cluster list", "doctl kubernetes cluster *"],
    ["gcloud compute instances list", "gcloud compute instances *"],
  ],
  "hosting and deploy tools": [
    ["cdk deploy --all", "cdk deploy *"],
    ["cf push app", "cf push *"],
    ["firebase deploy --only hosting", "firebase deploy *"],
    ["flyctl deploy", "flyctl deploy *"],
    ["heroku logs --tail", "heroku logs *"],
    ["mc ls myminio/bucket", "mc ls *"],
    ["mc admin info myminio", "mc admin info *"],
    ["pulumi up --yes", "pulumi up *"],
    ["pulumi stack output url", "pulumi stack output *"],
    ["serverless invoke -f hello", "serverless invoke *"],
    ["sfdx force:org:list", "sfdx force:org:list *"],
    ["sls deploy --stage prod", "sls deploy *"],
    ["sst deploy --stage prod", "sst deploy *"],
    ["vercel deploy --prod", "vercel deploy *"],
  ],
  "consul, terraform and vault": [
    ["consul members", "consul members *"],
    ["consul kv get config", "consul kv get *"],
    ["terraform apply -auto-approve", "terraform apply *"],
    ["terraform workspace select prod", "terraform workspace select *"],
    ["vault login", "vault login *"],
    ["vault auth list", "vault auth list *"],
    ["vault kv get secret/api", "vault kv get *"],
  ],
  databases: [
    ["mongosh test", "mongosh test *"],
    ["mysql shop -e 'select 1'", "mysql shop *"],
    ["psql mydb -c 'select 1'", "psql mydb *"],
    ["redis-cli ping", "redis-cli ping *"],
  ],
  "system and network": [
    ["brew install node", "brew install *"],
    ["ip neigh show", "ip neigh *"],
    ["ip addr show dev eth0", "ip addr show *"],
    ["ip link set eth0 up", "ip link set *"],
    ["ip netns exec blue ip addr", "ip netns exec *"],
    ["ip route add default via 10.0.0.1", "ip route add *"],
    ["openssl genrsa -out key.pem 2048", "openssl genrsa *"],
    // The third word is an option, which never stands in a prefix: only the exact command.
    ["openssl req -new -key key.pem -out req.csr", "openssl req -new -key key.pem -out req.csr"],
    ["openssl x509 -in cert.pem -noout", "openssl x509 -in cert.pem -noout"],
    ["systemctl restart nginx", "systemctl restart *"],
    ["tmux new -s dev", "tmux new *"],
    ["ufw allow 22", "ufw allow *"],
  ],
}

/** The table key a command's words are looked up by: the longest one its words start with. */
function keyOf(command: string): string | undefined {
  const words = command.split(" ")
  for (let length = words.length; length > 0; length--) {
    const key = words.slice(0, length).join(" ")
    if (Object.hasOwn(ARITY, key)) return key
  }
  return undefined
}

describe("arityOf", () => {
  it("approves `consul kv get *` for `consul kv get config`, not all of consul", () => {
    expect(always("consul kv get config")).toEqual(["consul kv get *"])
  })

  describe.each(Object.entries(FAMILIES))("%s", (_family, cases) => {
    it.each(cases)("%s approves %s", (command, approves) => {
      expect(always(command)).toEqual([approves])
    })
  })

  it("has a case above for every entry of the table", () => {
    const covered = new Set(
      Object.values(FAMILIES).flatMap((cases) => cases.map(([command]) => keyOf(command))),
    )
    expect(Object.keys(ARITY).filter((key) => !covered.has(key))).toEqual([])
  })

  it("counts the name only of a command not listed", () => {
    expect(arityOf(["terraformer", "import", "aws"])).toBe(1)
    expect(always("terraformer import aws")).toEqual(["terraformer *"])
  })

  it("lets the longest listed prefix win", () => {
    expect(arityOf(["docker", "run", "nginx"])).toBe(2)
    expect(arityOf(["docker", "compose", "up"])).toBe(3)
  })

  it("does not take names inherited by every object for table entries", () => {
    expect(arityOf(["toString", "x"])).toBe(1)
    expect(arityOf(["constructor"])).toBe(1)
  })
})
