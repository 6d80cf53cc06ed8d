// The package as a user installs it, for the checks that run it in a project of their own (the
// consumer check, Bun and Deno, workerd): `npm pack` of this checkout, the tarball unpacked into
// the project's node_modules, and what it declares linked from the dev install, so that no
// check needs the network and none sees a package the manifest does not name.
import { execFileSync } from "node:child_process"
import { existsSync, mkdirSync, readFileSync } from "node:fs"
import { dirname, join, resolve } from "node:path"

const repo = resolve(import.meta.dirname, "../..")

/** What `npm pack --json` says of the tarball it wrote. */
export type Packed = { tarball: string; size: number; unpackedSize: number; entryCount: number }

/** The parts of the manifest that say what the package needs installed beside it. */
export type Manifest = {
  dependencies?: Record<string, string>
  peerDependencies?: Record<string, string>
  peerDependenciesMeta?: Record<string, { optional?: boolean }>
}

/**
 * `npm pack` of this checkout into `destination`; its prepack builds dist/ first, unless
 * AGENTLOOP_DIST_BUILT says dist/ was just built from this checkout (CI, after `npm test`: the
 * later checks pack the same build without building it again).
 */
export function packRepository(destination: string): Packed {
  const skipBuild = process.env.AGENTLOOP_DIST_BUILT ? ["--ignore-scripts"] : []
  const output = execFileSync("npm", ["pack", "--json", ...skipBuild, "--pack-destination", destination], {
    cwd: repo,
    encoding: "utf8",
    // The build's output stays out of the check's; a failure's error carries it.
    stdio: ["ignore", "pipe", "pipe"],
    timeout: 300_000,
  })
  const [info] = JSON.parse(output) as (Omit<Packed, "tarball"> & { filename: string })[]
  if (!info) throw new Error("npm pack printed no package")
  return { ...info, tarball: join(destination, info.filename) }
}

/** The tarball unpacked as `node_modules/agentloop-sdk` of `project`; returns that folder. */
export function unpack(project: string, tarball: string): string {
  const target = join(project, "node_modules", "agentloop-sdk")
  mkdirSync(target, { recursive: true })
  execFileSync("tar", ["-xzf", tarball, "-C", target, "--strip-components=1"], { timeout: 60_000 })
  return target
}

/** The optional peers the manifest names. */
export function optionalPeers(manifest: Manifest): string[] {
  const meta = manifest.peerDependenciesMeta ?? {}
  return Object.keys(meta).filter((name) => meta[name]?.optional)
}

/**
 * Links into `project` what the installed manifest declares: its dependencies and its peers
 * (the optional ones only with `optional: true`, as a user who installs only what they use),
 * and `extras` besides.
 */
export function linkDeclared(
  project: string,
  options: { optional: boolean; extras?: readonly string[] },
): Manifest {
  const manifest = JSON.parse(
    readFileSync(join(project, "node_modules", "agentloop-sdk", "package.json"), "utf8"),
  ) as Manifest
  const optional = optionalPeers(manifest)
  const peers = Object.keys(manifest.peerDependencies ?? {}).filter(
    (name) => options.optional || !optional.includes(name),
  )
  for (const name of [...Object.keys(manifest.dependencies ?? {}), ...peers, ...(options.extras ?? [])])
    linkPackage(project, name)
  return manifest
}

/** Links one package of the dev install into `project`'s node_modules. */
export function linkPackage(project: string, name: string): void {
  const source = join(repo, "node_modules", name)
  if (!existsSync(source)) throw new Error(`${name} is not in the dev install (npm ci)`)
  const link = join(project, "node_modules", name)
  mkdirSync(dirname(link), { recursive: true })
  execFileSync("ln", ["-s", source, link], { timeout: 10_000 })
}
