// The entry of `mcp`'s own bundle (see OWN_BUNDLE_COMMANDS): the program with that command alone.
import { registerMcpCommand } from "../commands/mcp.js";
import { startCli } from "../start.js";

await startCli([["mcp", async () => registerMcpCommand]]);
