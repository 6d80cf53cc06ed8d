/**
 * `import()` of an optional peer by a name given at run time. A literal `import("pkg")` is
 * followed by bundlers (esbuild, wrangler, Rollup, webpack), which fail the whole build where
 * `pkg` is not installed, as in a Cloudflare Worker without the optional peers. A name passed in
 * is left to the runtime: Node loads the package when it is installed, and where it is not (or
 * in a bundle that cannot load packages at run time) the promise rejects, for the caller to name.
 */
export function importOptional<Module>(specifier: string): Promise<Module> {
  return import(/* webpackIgnore: true */ /* @vite-ignore */ specifier) as Promise<Module>
}
