// A test file whose one test waits on an answer that never comes, while something (a timer, as a
// socket or a child process would) keeps the process alive: the runner's timeout is the only thing
// that can end it. Run by test/suite.test.ts, never by the suite's glob.
import { test } from "node:test";

test("waits for an answer that never comes", async () => {
  setInterval(() => {}, 60_000);
  await new Promise(() => {});
});
