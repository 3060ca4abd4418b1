import assert from "node:assert/strict";
import { test } from "node:test";
import { InstallError } from "../../src/install/install-error.js";
import { parseSource } from "../../src/install/source-spec.js";

const CWD = "/work/project";
const HOME = "/home/me";
const parse = (source: string) => parseSource(source, CWD, HOME);

function refusedAsUsage(source: string, message: RegExp): void {
  assert.throws(
    () => parse(source),
    (error: unknown) => error instanceof InstallError && error.kind === "usage" && message.test(error.message),
    source,
  );
}

test("owner/repo[/path][#ref] is GitHub over https, with the path inside the repository and the ref", () => {
  assert.deepEqual(parse("anthropics/skills"), { kind: "git", given: "anthropics/skills", url: "https://github.com/anthropics/skills.git", ref: null, path: "" });
  assert.deepEqual(parse("anthropics/skills/skills/pdf#v1.2"), {
    kind: "git",
    given: "anthropics/skills/skills/pdf#v1.2",
    url: "https://github.com/anthropics/skills.git",
    ref: "v1.2",
    path: "skills/pdf",
  });
  assert.equal((parse("me/tools.git") as { url: string }).url, "https://github.com/me/tools.git");
});

test("git URLs are kept as given, with an optional #ref", () => {
  for (const url of ["https://example.com/team/skills.git", "ssh://git@example.com/team/skills.git", "git@example.com:team/skills.git", "file:///srv/skills"]) {
    assert.deepEqual(parse(url), { kind: "git", given: url, url, ref: null, path: "" });
  }
  assert.deepEqual(parse("file:///srv/skills#feature/x"), { kind: "git", given: "file:///srv/skills#feature/x", url: "file:///srv/skills", ref: "feature/x", path: "" });
});

test("a GitHub folder page (…/tree/REF/path) is that repository at REF, that folder", () => {
  assert.deepEqual(parse("https://github.com/anthropics/skills/tree/main/skills/pdf"), {
    kind: "git",
    given: "https://github.com/anthropics/skills/tree/main/skills/pdf",
    url: "https://github.com/anthropics/skills.git",
    ref: "main",
    path: "skills/pdf",
  });
  assert.deepEqual(parse("https://github.com/anthropics/skills/tree/v2"), { kind: "git", given: "https://github.com/anthropics/skills/tree/v2", url: "https://github.com/anthropics/skills.git", ref: "v2", path: "" });
  // A repository URL that is not a folder page is fetched as given.
  assert.equal((parse("https://github.com/anthropics/skills") as { url: string }).url, "https://github.com/anthropics/skills");
  refusedAsUsage("https://github.com/o/r/tree/-x/skills", /is not a branch, tag or commit name/);
});

test("a local folder is spelled as one: ./, ../, /, ~/ (owner/repo always means GitHub)", () => {
  assert.deepEqual(parse("./skills"), { kind: "local", given: "./skills", dir: "/work/project/skills" });
  assert.deepEqual(parse("../shared"), { kind: "local", given: "../shared", dir: "/work/shared" });
  assert.deepEqual(parse("/abs/skills"), { kind: "local", given: "/abs/skills", dir: "/abs/skills" });
  assert.deepEqual(parse("~/skills"), { kind: "local", given: "~/skills", dir: "/home/me/skills" });
  assert.deepEqual(parse("."), { kind: "local", given: ".", dir: "/work/project" });
});

test("anything git could read as an option is refused before anything runs", () => {
  refusedAsUsage("--upload-pack=touch /tmp/x", /looks like an option/);
  refusedAsUsage("-u", /looks like an option/);
  refusedAsUsage("ssh://-oProxyCommand=x/repo", /names no usable host/);
  refusedAsUsage("git@-oProxyCommand=x:repo", /looks like an option/);
  refusedAsUsage("me@host:-repo", /looks like an option/);
  refusedAsUsage("owner/repo#--upload-pack=x", /is not a branch, tag or commit name/);
  refusedAsUsage("owner/repo#a:b", /is not a branch, tag or commit name/);
  refusedAsUsage("owner/repo#a..b", /is not a branch, tag or commit name/);
});

test("other schemes, bad paths and unreadable text are usage errors", () => {
  refusedAsUsage("ext::sh -c touch% /tmp/x", /is not a git URL, owner\/repo, or a local folder/);
  refusedAsUsage("git://example.com/repo", /only https:\/\/, ssh:\/\/, file:\/\//);
  refusedAsUsage("http://example.com/repo", /plain http:\/\/ is accepted only on this machine's loopback/);
  refusedAsUsage("ftp://example.com/repo", /a well-known site/);
  refusedAsUsage("owner/repo/../../etc", /may not hold empty, \. or \.\. segments/);
  refusedAsUsage("skills", /write a local folder as \.\/skills/);
  refusedAsUsage("", /SOURCE is empty/);
  refusedAsUsage("owner/repo\n", /control character/);
});

test("an https:// URL off the git hosts is a well-known site first (git when it has no index); plain http:// only on loopback", () => {
  assert.deepEqual(parse("https://skills.example.com/team/"), { kind: "well-known", given: "https://skills.example.com/team/", url: "https://skills.example.com/team", gitFallback: true });
  for (const loopback of ["http://127.0.0.1:8080", "http://localhost:9", "http://[::1]:9/x"]) {
    assert.equal(parse(loopback).kind, "well-known", loopback);
    assert.equal((parse(loopback) as { gitFallback: boolean }).gitFallback, false);
  }
  // Git hosts, .git paths and a #ref go to git as before.
  for (const url of ["https://github.com/a/b", "https://gitlab.com/a/b", "https://example.com/a/b.git", "https://example.com/a/b#main"]) assert.equal(parse(url).kind, "git", url);
  refusedAsUsage("http://10.0.0.1/skills", /only on this machine's loopback/);
  refusedAsUsage("https://user:pw@example.com/", /may not hold a user or password/);
  refusedAsUsage("https://example.com/?q=1", /may not hold a query or fragment/);
});

test("a GitLab folder page (…/-/tree/REF/path, any GitLab host, subgroups too) is that repository at REF, that folder", () => {
  assert.deepEqual(parse("https://gitlab.com/group/sub/repo/-/tree/main/skills/pdf"), {
    kind: "git",
    given: "https://gitlab.com/group/sub/repo/-/tree/main/skills/pdf",
    url: "https://gitlab.com/group/sub/repo.git",
    ref: "main",
    path: "skills/pdf",
  });
  assert.deepEqual(parse("https://git.example.org/team/repo/-/tree/v1"), { kind: "git", given: "https://git.example.org/team/repo/-/tree/v1", url: "https://git.example.org/team/repo.git", ref: "v1", path: "" });
  refusedAsUsage("https://gitlab.com/g/r/-/tree/main/a//x", /may not hold empty, \. or \.\. segments/);
  refusedAsUsage("https://gitlab.com/g/r/-/tree/-x", /is not a branch, tag or commit name/);
});
