import { beforeAll, describe, expect, it } from "vitest"
import { Permission } from "../../../src/index.js"
import { createShellParser } from "../../../src/tools/bash/parser.js"
import { bashPatterns, UNPARSED } from "../../../src/tools/bash/patterns.js"
import type { Parse } from "../../../src/tools/bash/script.js"

let parse: Parse
beforeAll(async () => {
  parse = await createShellParser()()
})

const ask = (command: string) => bashPatterns(command, parse(command), parse)

/** What the permission service decides for a command under `config` (bash rules), as it does: any deny denies, all allowed allows. */
function decide(command: string, config: Permission.Config[string], approved: string[] = []) {
  const rules = Permission.fromConfig({ bash: config })
  const approvals: Permission.Ruleset = approved.map((pattern) => ({
    permission: "bash",
    pattern,
    action: "allow",
  }))
  const actions = ask(command).patterns.map((pattern) => {
    const action = Permission.evaluate("bash", pattern, rules).action
    // As the service does: what the rules leave to ask, an "always" approval may cover.
    return action === "ask" && Permission.evaluate("bash", pattern, approvals).action === "allow"
      ? "allow"
      : action
  })
  if (actions.includes("deny")) return "deny"
  return actions.every((action) => action === "allow") ? "allow" : "ask"
}

describe("bash permission patterns", () => {
  describe("a deny on `rm *` catches every way of writing rm", () => {
    const denyRm = { "*": "allow", "rm *": "deny" } as const
    it.each([
      ["rm -rf /"],
      ["/bin/rm -rf /"],
      ["/usr/bin/rm x"],
      [" rm x"],
      ["\trm x"],
      ["rm\t-rf x"],
      ["'rm' x"],
      ['"rm" x'],
      ["\\rm x"],
      ['r"m" x'],
      ["$'\\x72m' x"],
      ["sudo rm x"],
      ["sudo -u root /bin/rm -rf x"],
      ["sudo -E rm x"],
      ["doas rm x"],
      ["env X=1 rm x"],
      ["env -i PATH=/bin rm x"],
      ["X=1 rm x"],
      ["command rm x"],
      ["builtin command rm x"],
      ["nohup rm x"],
      ["exec rm x"],
      ["time rm x"],
      ["nice -n 5 rm x"],
      ["timeout 5 rm x"],
      ["timeout -s KILL 5 rm x"],
      ["stdbuf -oL rm x"],
      ["setsid rm x"],
      ["ls | xargs rm"],
      ["ls | xargs -n 1 -I {} rm {}"],
      ["sudo nohup env A=b /bin/rm x"],
      ["ls && rm x"],
      ["ls || rm x"],
      ["ls; rm x"],
      ["ls\nrm x"],
      ["ls | rm x"],
      ["(rm x)"],
      ["{ rm x; }"],
      ["echo $(rm x)"],
      ["echo `rm x`"],
      ['echo "$(rm x)"'],
      ["cat <(rm x)"],
      ["if true; then rm x; fi"],
      ["for f in a b; do rm $f; done"],
      ["while false; do rm x; done"],
      ["case a in a) rm x;; esac"],
      ["f() { rm x; }; f"],
      ["! rm x"],
      ["x=$(rm y) ls"],
      ["export A=$(rm x)"],
      ["ls > /dev/null -la && rm x"],
      ["bash -c 'rm x'"],
      ["sh -ec 'ls; rm x'"],
      ["eval 'rm x'"],
      ["env -S 'rm x'"],
      ["find . -name '*.tmp' -exec rm {} \\;"],
      ["find . -execdir rm {} +"],
    ])("%j", (command) => {
      expect(decide(command, denyRm)).toBe("deny")
    })

    it.each([["rmdir x"], ["git rm x"], ["echo rm x"], ["rmx"], ["ls rm"]])("%j is not rm", (command) => {
      expect(decide(command, denyRm)).toBe("allow")
    })
  })

  it("asks the inner command and keeps the wrapper, so a deny on the wrapper still holds", () => {
    expect(ask("sudo rm x").patterns).toEqual(["sudo rm x", "rm x"])
    expect(decide("sudo rm x", { "*": "allow", "sudo *": "deny" })).toBe("deny")
    expect(decide("nohup rm x", { "*": "allow", "nohup *": "deny" })).toBe("deny")
    expect(decide("sudo nohup rm x", { "*": "allow", "nohup *": "deny" })).toBe("deny")
    // An allow on the inner command does not let the wrapper through.
    expect(decide("sudo git push", { "*": "ask", "git *": "allow" })).toBe("ask")
  })

  it("takes no command named after an Object member for a wrapper", () => {
    expect(ask("toString x").patterns).toEqual(["toString x"])
    expect(ask("constructor x").always).toEqual(["constructor *"])
  })

  it("normalises whitespace and quoting in the patterns", () => {
    expect(ask("  git   commit\t-m 'fix the  bug'  ").patterns).toEqual(["git commit -m fix the  bug"])
    expect(ask("/bin/rm -rf /").patterns).toEqual(["/bin/rm -rf /", "rm -rf /"])
  })

  it("asks one pattern per command of lists, pipelines and substitutions", () => {
    expect(ask("git status && npm test | tee log; echo $(date)").patterns).toEqual([
      "git status",
      "npm test",
      "tee log",
      "echo $(date)",
      "date",
    ])
    expect(decide("git status && curl x", { "*": "ask", "git *": "allow" })).toBe("ask")
    expect(decide("git status && git diff", { "*": "ask", "git *": "allow" })).toBe("allow")
  })

  describe("always approves the prefix by arity", () => {
    it.each([
      ["git commit -m 'msg'", ["git commit *"]],
      ["git checkout main", ["git checkout *"]],
      ["npm run build -- --watch", ["npm run build *"]],
      ["npm install", ["npm install *"]],
      ["ls -la", ["ls *"]],
      ["docker compose up -d", ["docker compose up *"]],
      ["./build.sh release", ["./build.sh *", "build.sh *"]],
      ["python script.py --fast", ["python script.py *"]],
      ["sudo rm x", ["sudo rm *", "rm *"]],
      ["/bin/rm x", ["/bin/rm *", "rm *"]],
      ["ls && git push origin main", ["ls *", "git push *"]],
    ])("%j", (command, always) => {
      expect(ask(command).always).toEqual(always)
    })

    it("offers only the exact command when an option or expansion stands in the prefix", () => {
      expect(ask("git -C /repo status").always).toEqual(["git -C /repo status"])
      expect(ask("bash -c 'make'").always).toContain("bash -c make")
      expect(ask("$TOOL run").always).toEqual([])
      expect(ask("'my tool' run").always).toEqual([])
    })

    it("covers later commands with the same prefix and nothing else", () => {
      const always = ask("git commit -m first").always
      expect(decide("git commit --amend", { "*": "ask" }, always)).toBe("allow")
      expect(decide("git push", { "*": "ask" }, always)).toBe("ask")
      expect(decide("git commit -m x && rm -rf /", { "*": "ask" }, always)).toBe("ask")
      // `sudo rm` approved as a whole does not approve other sudo commands.
      const sudo = ask("sudo rm x").always
      expect(decide("sudo rm y", { "*": "ask" }, sudo)).toBe("allow")
      expect(decide("sudo git push", { "*": "ask" }, sudo)).toBe("ask")
    })
  })

  describe("a command that does not parse", () => {
    const broken = "git status; rm -rf / 'unterminated"

    it("asks with the raw command, so deny and ask rules still apply", () => {
      const asked = ask(broken)
      expect(asked.patterns).toContain(broken)
      expect(decide(broken, { "*": "allow", "git *": "deny" })).toBe("deny")
      expect(decide(broken, { "*": "allow", "rm *": "deny" })).toBe("deny")
      expect(decide("  rm\t-rf / '", { "*": "allow", "rm *": "deny" })).toBe("deny")
    })

    it("is never approved by a prefix, neither by an approval nor by an allow rule", () => {
      expect(ask(broken).always).toEqual([])
      expect(ask(broken).patterns).toContain(`${UNPARSED} ${broken}`)
      expect(decide(broken, { "*": "ask" }, ["git *", "rm *"])).toBe("ask")
      expect(decide(broken, { "*": "ask", "git *": "allow", "rm *": "allow" })).toBe("ask")
      // Allowing every command is still the user's to choose.
      expect(decide(broken, "allow")).toBe("allow")
    })
  })
})
