import type { CommandTable } from "./command-table.js";

/**
 * Every command. Each command's module is loaded only when needed: a run names one command, and
 * loading every command's module (and what each imports) was a third of what starting
 * `skillport list` cost.
 */
export const COMMANDS: CommandTable = [
  ["list", async () => (await import("./commands/list.js")).registerListCommand],
  ["show", async () => (await import("./commands/show.js")).registerShowCommand],
  ["read", async () => (await import("./commands/read.js")).registerReadCommand],
  ["sync", async () => (await import("./commands/sync.js")).registerSyncCommand],
  ["validate", async () => (await import("./commands/validate.js")).registerValidateCommand],
  ["prompt", async () => (await import("./commands/prompt.js")).registerPromptCommand],
  ["doctor", async () => (await import("./commands/doctor.js")).registerDoctorCommand],
  ["stats", async () => (await import("./commands/stats.js")).registerStatsCommand],
  ["add", async () => (await import("./commands/add.js")).registerAddCommand],
  ["update", async () => (await import("./commands/update.js")).registerUpdateCommand],
  ["remove", async () => (await import("./commands/remove.js")).registerRemoveCommand],
  ["verify", async () => (await import("./commands/verify.js")).registerVerifyCommand],
  ["publish", async () => (await import("./commands/publish.js")).registerPublishCommand],
  ["bundle", async () => (await import("./commands/bundle.js")).registerBundleCommand],
  ["mcp", async () => (await import("./commands/mcp.js")).registerMcpCommand],
  ["store", async () => (await import("./commands/store.js")).registerStoreCommand],
];
