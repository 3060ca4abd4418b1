import type { Command } from "commander";
import { oneLineShown } from "../../package/display-text.js";
import { verifyBundle } from "../../registry/bundle-verify.js";
import { BundleError, writeBundle } from "../../registry/bundle-write.js";
import { privateRootsOf } from "../../registry/sources.js";
import type { CommandHost } from "../command-host.js";
import { CliError, EXIT_FAILURE_FOUND, EXIT_OK, EXIT_USAGE, type ExitCode } from "../exit.js";
import { writeJson, type CliOutput } from "../output.js";
import { isDirectory } from "../../package/path-kind.js";
import { readConfigAsWritten } from "../runtime-context.js";

export interface BundleOptions {
  verify?: boolean;
  json?: boolean;
  config?: string;
}

export function registerBundleCommand(program: Command, { out, run }: CommandHost): void {
  program
    .command("bundle")
    .description("write skills as an immutable tree named by its digest, for replicas to serve (--bundle); or check one (--verify)")
    .argument("<dir>", "a folder of skills or one skill directory (with --verify: a bundle directory)")
    .argument("[out]", "the directory the bundle is written into, as OUT/sha256-<hex>")
    .option("--verify", "check the bundle directory DIR against its lock and its name instead")
    .option("--config <file>", "config file whose agent sources are never bundled (default: ./skillport.config.json when present)")
    .option("--json", "print machine-readable JSON on stdout")
    .action((dir: string, outDir: string | undefined, options: BundleOptions) => run(() => bundleCommand(dir, outDir, options, out)));
}

export async function bundleCommand(dir: string, outDir: string | undefined, options: BundleOptions, out: CliOutput): Promise<ExitCode> {
  if (options.verify) {
    if (outDir !== undefined) throw new CliError("bundle --verify takes one bundle directory, not OUT", EXIT_USAGE);
    return verifyCommand(dir, options, out);
  }
  if (outDir === undefined) throw new CliError("bundle needs DIR and OUT (or --verify BUNDLE)", EXIT_USAGE);
  // An agent source's skills are private to that agent, and a bundle is served to every agent.
  // Leaving out takes nothing from anyone, so the file counts as written even when found in the
  // working directory, where serving would confine it.
  const config = readConfigAsWritten({ config: options.config }, process.cwd());
  let result;
  try {
    result = await writeBundle(dir, outDir, { privateRoots: privateRootsOf(config?.sources ?? []) });
  } catch (error) {
    if (error instanceof BundleError) throw new CliError(error.message, error.kind === "usage" ? EXIT_USAGE : EXIT_FAILURE_FOUND);
    throw error;
  }
  for (const skipped of result.skipped) out.log(`warning: not bundled: ${oneLineShown(skipped.path)}: ${skipped.reason}`);
  if (options.json) {
    writeJson(out, result);
  } else {
    out.data(`${result.dir}\n`);
    const files = `${result.files} file${result.files === 1 ? "" : "s"}, ${result.bytes} bytes`;
    out.log(result.unchanged ? `bundle ${result.digest} was already there, whole: ${files}; nothing written` : `bundle ${result.digest}: ${files}`);
  }
  return EXIT_OK;
}

async function verifyCommand(dir: string, options: BundleOptions, out: CliOutput): Promise<ExitCode> {
  if (!isDirectory(dir)) throw new CliError(`bundle ${dir} is not a directory`, EXIT_USAGE);
  const check = await verifyBundle(dir);
  const ok = check.problems.length === 0;
  if (options.json) {
    writeJson(out, { ok, digest: check.digest, files: check.files, problems: check.problems });
  } else if (ok) {
    out.data(`${check.digest}: ${check.files} file${check.files === 1 ? "" : "s"} match the lock\n`);
  } else {
    out.data(`${check.digest ?? dir}: does not match its lock\n`);
    for (const problem of check.problems) out.data(`  - ${oneLineShown(problem)}\n`);
  }
  return ok ? EXIT_OK : EXIT_FAILURE_FOUND;
}
