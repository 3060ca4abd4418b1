/**
 * Every host an `--agent ID` can name (SPEC §10.1): the agent table of the `skills` CLI (npm
 * `skills` 1.7.4, its `agents` object in dist/cli.mjs and docs/agents.md; read 2026-12-04), with
 * the same ids, project folders, global folders and detection, so `skillport add --agent ID`
 * installs where that CLI would.
 *
 * Paths are written as that CLI builds them: `~` the home directory, `${VAR:-default}` an
 * environment variable with its default (`${CLAUDE_CONFIG_DIR:-~/.claude}`), `${VAR}` one with
 * none (a probe of an unset variable finds nothing), `./` the working directory. `global: null`
 * is a host with no global folder (project only). A global given as a list is the first whose
 * parent exists, else the first (OpenClaw's `.openclaw`, `.clawdbot`, `.moltbot`).
 *
 * How that CLI uses the table, followed by host-links.ts: a host whose project folder is
 * `.agents/skills` (a "universal" host) reads the canonical folder itself, project and global
 * (`~/.agents/skills`, whatever its own global folder says), and gets no link; every other host
 * gets a link from its folder to the canonical one.
 */
import * as fs from "node:fs";
import * as path from "node:path";

export interface Host {
  id: string;
  name: string;
  /** Relative to the project root. */
  project: string;
  /** The user's folder; null when the host has none. */
  global: string | readonly string[] | null;
  /** Paths whose existence says the host is installed (any one); `./agent and package.json depends on eve` is that check. */
  detect: readonly string[];
  /** Left out of `'*'` lists and help (the table's own `universal` row, Replit). */
  hidden?: true;
}

/** The folder every install goes into first, relative to the project root or the home directory. */
export const CANONICAL_FOLDER = ".agents/skills";

export const HOSTS: readonly Host[] = [
  { id: "adal", name: "AdaL", project: ".adal/skills", global: "~/.adal/skills", detect: ["~/.adal"] },
  { id: "aider-desk", name: "AiderDesk", project: ".aider-desk/skills", global: "~/.aider-desk/skills", detect: ["~/.aider-desk"] },
  { id: "amp", name: "Amp", project: ".agents/skills", global: "${XDG_CONFIG_HOME:-~/.config}/agents/skills", detect: ["${XDG_CONFIG_HOME:-~/.config}/amp"] },
  { id: "antigravity", name: "Antigravity", project: ".agents/skills", global: "~/.gemini/antigravity/skills", detect: ["~/.gemini/antigravity"] },
  { id: "antigravity-cli", name: "Antigravity CLI", project: ".agents/skills", global: "~/.gemini/antigravity-cli/skills", detect: ["~/.gemini/antigravity-cli"] },
  { id: "astrbot", name: "AstrBot", project: "data/skills", global: "~/.astrbot/data/skills", detect: ["./data/skills","~/.astrbot"] },
  { id: "augment", name: "Augment", project: ".augment/skills", global: "~/.augment/skills", detect: ["~/.augment"] },
  { id: "autohand-code", name: "Autohand Code CLI", project: ".autohand/skills", global: "${AUTOHAND_HOME:-~/.autohand}/skills", detect: ["${AUTOHAND_HOME:-~/.autohand}"] },
  { id: "bob", name: "IBM Bob", project: ".bob/skills", global: "~/.bob/skills", detect: ["~/.bob"] },
  { id: "claude-code", name: "Claude Code", project: ".claude/skills", global: "${CLAUDE_CONFIG_DIR:-~/.claude}/skills", detect: ["${CLAUDE_CONFIG_DIR:-~/.claude}"] },
  { id: "cline", name: "Cline", project: ".agents/skills", global: "~/.agents/skills", detect: ["~/.cline"] },
  { id: "codearts-agent", name: "CodeArts Agent", project: ".codeartsdoer/skills", global: "~/.codeartsdoer/skills", detect: ["~/.codeartsdoer"] },
  { id: "codebuddy", name: "CodeBuddy", project: ".codebuddy/skills", global: "~/.codebuddy/skills", detect: ["./.codebuddy","~/.codebuddy"] },
  { id: "codemaker", name: "Codemaker", project: ".codemaker/skills", global: "~/.codemaker/skills", detect: ["~/.codemaker"] },
  { id: "codestudio", name: "Code Studio", project: ".codestudio/skills", global: "~/.codestudio/skills", detect: ["~/.codestudio"] },
  { id: "codex", name: "Codex", project: ".agents/skills", global: "~/.agents/skills", detect: ["${CODEX_HOME:-~/.codex}","/etc/codex"] },
  { id: "command-code", name: "Command Code", project: ".commandcode/skills", global: "~/.commandcode/skills", detect: ["~/.commandcode"] },
  { id: "continue", name: "Continue", project: ".continue/skills", global: "~/.continue/skills", detect: ["./.continue","~/.continue"] },
  { id: "cortex", name: "Cortex Code", project: ".cortex/skills", global: "~/.snowflake/cortex/skills", detect: ["~/.snowflake/cortex"] },
  { id: "crush", name: "Crush", project: ".crush/skills", global: "~/.config/crush/skills", detect: ["~/.config/crush"] },
  { id: "cursor", name: "Cursor", project: ".agents/skills", global: "~/.cursor/skills", detect: ["~/.cursor"] },
  { id: "deepagents", name: "Deep Agents", project: ".agents/skills", global: "~/.deepagents/agent/skills", detect: ["~/.deepagents"] },
  { id: "devin", name: "Devin for Terminal", project: ".devin/skills", global: "${XDG_CONFIG_HOME:-~/.config}/devin/skills", detect: ["${XDG_CONFIG_HOME:-~/.config}/devin"] },
  { id: "dexto", name: "Dexto", project: ".agents/skills", global: "~/.agents/skills", detect: ["~/.dexto"] },
  { id: "droid", name: "Droid", project: ".agents/skills", global: "~/.factory/skills", detect: ["~/.factory"] },
  { id: "eve", name: "Eve", project: "agent/skills", global: null, detect: ["./agent and package.json depends on eve"] },
  { id: "firebender", name: "Firebender", project: ".agents/skills", global: "~/.firebender/skills", detect: ["~/.firebender"] },
  { id: "forgecode", name: "ForgeCode", project: ".forge/skills", global: "~/.forge/skills", detect: ["~/.forge"] },
  { id: "fx", name: "fx", project: ".agents/skills", global: "~/.agents/skills", detect: ["~/.fx"] },
  { id: "gemini-cli", name: "Gemini CLI", project: ".agents/skills", global: "~/.gemini/skills", detect: ["~/.gemini"] },
  { id: "github-copilot", name: "GitHub Copilot", project: ".agents/skills", global: "~/.copilot/skills", detect: ["~/.copilot"] },
  { id: "goose", name: "Goose", project: ".goose/skills", global: "${XDG_CONFIG_HOME:-~/.config}/goose/skills", detect: ["${XDG_CONFIG_HOME:-~/.config}/goose"] },
  { id: "grok", name: "Grok Build", project: ".grok/skills", global: "${GROK_HOME:-~/.grok}/skills", detect: ["${GROK_HOME:-~/.grok}"] },
  { id: "hermes-agent", name: "Hermes Agent", project: ".hermes/skills", global: "${HERMES_HOME:-~/.hermes}/skills", detect: ["${HERMES_HOME:-~/.hermes}"] },
  { id: "iflow-cli", name: "iFlow CLI", project: ".iflow/skills", global: "~/.iflow/skills", detect: ["~/.iflow"] },
  { id: "inference-sh", name: "inference.sh", project: ".inferencesh/skills", global: "~/.inferencesh/skills", detect: ["~/.inferencesh"] },
  { id: "jazz", name: "Jazz", project: ".jazz/skills", global: "~/.jazz/skills", detect: ["~/.jazz","./.jazz"] },
  { id: "junie", name: "Junie", project: ".junie/skills", global: "~/.junie/skills", detect: ["~/.junie"] },
  { id: "kilo", name: "Kilo Code", project: ".agents/skills", global: "~/.kilo/skills", detect: ["~/.kilo","~/.kilocode"] },
  { id: "kimchi", name: "Kimchi", project: ".kimchi/skills", global: "~/.config/kimchi/harness/skills", detect: ["~/.config/kimchi"] },
  { id: "kimi-code-cli", name: "Kimi Code CLI", project: ".agents/skills", global: "~/.agents/skills", detect: ["~/.kimi-code","~/.kimi"] },
  { id: "kiro-cli", name: "Kiro CLI", project: ".kiro/skills", global: "~/.kiro/skills", detect: ["~/.kiro"] },
  { id: "kode", name: "Kode", project: ".kode/skills", global: "~/.kode/skills", detect: ["~/.kode"] },
  { id: "lingma", name: "Lingma", project: ".lingma/skills", global: "~/.lingma/skills", detect: ["~/.lingma"] },
  { id: "loaf", name: "Loaf", project: ".agents/skills", global: "~/.agents/skills", detect: ["~/.loaf"] },
  { id: "mcpjam", name: "MCPJam", project: ".mcpjam/skills", global: "~/.mcpjam/skills", detect: ["~/.mcpjam"] },
  { id: "minimax-code", name: "MiniMax Code", project: ".minimax/skills", global: "~/.minimax/skills", detect: ["~/.minimax","/Applications/MiniMax Code.app"] },
  { id: "mistral-vibe", name: "Mistral Vibe", project: ".vibe/skills", global: "${VIBE_HOME:-~/.vibe}/skills", detect: ["${VIBE_HOME:-~/.vibe}"] },
  { id: "moxby", name: "Moxby", project: ".moxby/skills", global: "~/.moxby/skills", detect: ["~/.moxby"] },
  { id: "mux", name: "Mux", project: ".mux/skills", global: "~/.mux/skills", detect: ["~/.mux"] },
  { id: "neovate", name: "Neovate", project: ".neovate/skills", global: "~/.neovate/skills", detect: ["~/.neovate"] },
  { id: "ona", name: "Ona", project: ".ona/skills", global: "~/.ona/skills", detect: ["~/.ona"] },
  { id: "openclaw", name: "OpenClaw", project: "skills", global: ["~/.openclaw/skills","~/.clawdbot/skills","~/.moltbot/skills"], detect: ["~/.openclaw","~/.clawdbot","~/.moltbot"] },
  { id: "opencode", name: "OpenCode", project: ".agents/skills", global: "${XDG_CONFIG_HOME:-~/.config}/opencode/skills", detect: ["${XDG_CONFIG_HOME:-~/.config}/opencode"] },
  { id: "openhands", name: "OpenHands", project: ".openhands/skills", global: "~/.openhands/skills", detect: ["~/.openhands"] },
  { id: "pi", name: "Pi", project: ".agents/skills", global: "~/.agents/skills", detect: ["~/.pi/agent"] },
  { id: "pochi", name: "Pochi", project: ".pochi/skills", global: "~/.pochi/skills", detect: ["~/.pochi"] },
  { id: "posit-assistant", name: "Posit Assistant", project: ".posit/assistant/skills", global: "~/.posit/assistant/skills", detect: ["~/.posit/assistant","~/.positai"] },
  { id: "promptscript", name: "PromptScript", project: ".agents/skills", global: null, detect: ["./.promptscript","./promptscript.yaml"] },
  { id: "qoder", name: "Qoder", project: ".qoder/skills", global: "~/.qoder/skills", detect: ["~/.qoder"] },
  { id: "qoder-cn", name: "Qoder CN", project: ".qoder/skills", global: "~/.qoder-cn/skills", detect: ["~/.qoder-cn"] },
  { id: "qwen-code", name: "Qwen Code", project: ".qwen/skills", global: "~/.qwen/skills", detect: ["~/.qwen"] },
  { id: "reasonix", name: "Reasonix", project: ".reasonix/skills", global: "~/.reasonix/skills", detect: ["~/.reasonix"] },
  { id: "replit", name: "Replit", project: ".agents/skills", global: "${XDG_CONFIG_HOME:-~/.config}/agents/skills", detect: ["./.replit"], hidden: true },
  { id: "roo", name: "Roo Code", project: ".roo/skills", global: "~/.roo/skills", detect: ["~/.roo"] },
  { id: "rovodev", name: "Rovo Dev", project: ".rovodev/skills", global: "~/.rovodev/skills", detect: ["~/.rovodev"] },
  { id: "sarvam-code", name: "Sarvam Code", project: ".agents/skills", global: "~/.agents/skills", detect: ["${SARVAM_HOME:-~/.sarvam}"] },
  { id: "tabnine-cli", name: "Tabnine CLI", project: ".tabnine/agent/skills", global: "~/.tabnine/agent/skills", detect: ["~/.tabnine"] },
  { id: "terramind", name: "Terramind", project: ".terramind/skills", global: "~/.terramind/skills", detect: ["~/.terramind"] },
  { id: "tinycloud", name: "Tinycloud", project: ".tinycloud/skills", global: "~/.tinycloud/skills", detect: ["~/.tinycloud"] },
  { id: "trae", name: "Trae", project: ".trae/skills", global: "~/.trae/skills", detect: ["~/.trae"] },
  { id: "trae-cn", name: "Trae CN", project: ".trae/skills", global: "~/.trae-cn/skills", detect: ["~/.trae-cn"] },
  { id: "universal", name: "Universal", project: ".agents/skills", global: "${XDG_CONFIG_HOME:-~/.config}/agents/skills", detect: [], hidden: true },
  { id: "warp", name: "Warp", project: ".agents/skills", global: "~/.agents/skills", detect: ["~/.warp"] },
  { id: "windsurf", name: "Windsurf", project: ".windsurf/skills", global: "~/.codeium/windsurf/skills", detect: ["~/.codeium/windsurf"] },
  { id: "zcode", name: "ZCode", project: ".zcode/skills", global: "~/.zcode/skills", detect: ["~/.zcode","/Applications/ZCode.app"] },
  { id: "zed", name: "Zed", project: ".agents/skills", global: "~/.agents/skills", detect: ["${XDG_CONFIG_HOME:-~/.config}/zed","${APPDATA}/Zed","${FLATPAK_XDG_CONFIG_HOME}/zed"] },
  { id: "zencoder", name: "Zencoder", project: ".zencoder/skills", global: "~/.zencoder/skills", detect: ["~/.zencoder"] },
  { id: "zenflow", name: "Zenflow", project: ".zencoder/skills", global: "~/.zencoder/skills", detect: ["~/.zencoder"] },
];

const BY_ID: ReadonlyMap<string, Host> = new Map(HOSTS.map((host) => [host.id, host]));

export function hostById(id: string): Host | undefined {
  return BY_ID.get(id);
}

/** Whether the host reads the canonical folder itself (and so needs no link). */
export function isUniversalHost(host: Host): boolean {
  return host.project === CANONICAL_FOLDER;
}

export interface HostContext {
  home: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
}

/**
 * A path of the table made concrete; null when it names an unset variable with no default.
 * `${VAR:-default}`: the variable when set and not blank (trimmed, as that CLI does), else the default.
 */
export function expandHostPath(text: string, context: HostContext): string | null {
  let rest = text;
  let base: string;
  const variable = /^\$\{([A-Z_][A-Z0-9_]*)(?::-([^}]*))?\}/.exec(rest);
  if (variable) {
    const value = context.env[variable[1]!]?.trim();
    rest = rest.slice(variable[0].length);
    if (value) base = value;
    else if (variable[2] !== undefined) {
      const fallback = expandHostPath(variable[2], context);
      if (fallback === null) return null;
      base = fallback;
    } else return null;
  } else if (rest === "~" || rest.startsWith("~/")) {
    base = context.home;
    rest = rest.slice(1);
  } else if (rest.startsWith("./")) {
    base = context.cwd;
    rest = rest.slice(1);
  } else {
    base = "/";
  }
  return path.join(base, ...rest.split("/").filter((part) => part !== ""));
}

/** The host's folder in the project at `root`. */
export function hostProjectDir(host: Host, root: string): string {
  return path.join(root, ...host.project.split("/"));
}

/** The host's global folder; null for a project-only host. A universal host's is the canonical `~/.agents/skills`. */
export function hostGlobalDir(host: Host, context: HostContext): string | null {
  if (host.global === null) return null;
  if (isUniversalHost(host)) return path.join(context.home, ...CANONICAL_FOLDER.split("/"));
  const candidates = (typeof host.global === "string" ? [host.global] : host.global).map((g) => expandHostPath(g, context)).filter((g): g is string => g !== null);
  return candidates.find((dir) => fs.existsSync(path.dirname(dir))) ?? candidates[0] ?? null;
}

/** The hosts installed on this machine (for `--agent '*'`), in the table's order. */
export function detectedHosts(context: HostContext): Host[] {
  return HOSTS.filter((host) => host.id !== "universal" && host.detect.some((probe) => probeFinds(probe, context)));
}

const EVE_PROBE = "./agent and package.json depends on eve";

function probeFinds(probe: string, context: HostContext): boolean {
  if (probe === EVE_PROBE) {
    if (!fs.existsSync(path.join(context.cwd, "agent"))) return false;
    try {
      const pkg = JSON.parse(fs.readFileSync(path.join(context.cwd, "package.json"), "utf8")) as { dependencies?: Record<string, unknown>; devDependencies?: Record<string, unknown> };
      return Boolean(pkg.dependencies?.eve || pkg.devDependencies?.eve);
    } catch {
      return false;
    }
  }
  const file = expandHostPath(probe, context);
  return file !== null && fs.existsSync(file);
}
