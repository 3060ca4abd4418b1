// A test file whose one test waits on a promise nothing resolves: the runner's timeout is the only
// thing that can end it. Run by test/suite.test.ts, never by the suite's glob.
import { test } from "node:test";

test("waits for an answer that never comes", async () => {
  await new Promise(() => {});
});
