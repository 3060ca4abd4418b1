// The entry of `list`'s own bundle (see OWN_BUNDLE_COMMANDS): the program with that command alone.
import { registerListCommand } from "../commands/list.js";
import { startCli } from "../start.js";

await startCli([["list", async () => registerListCommand]]);
