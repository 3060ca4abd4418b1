"""Runs the reference CLI over many cases in one process.

Each stdin line is {"command": "validate" | "to-prompt", "paths": [...]}; each stdout line is
{"stdout", "stderr", "status"} as the command line `skills-ref COMMAND PATHS...` would give.
Paths that exist go straight to the CLI's own command functions (click only turned the
arguments into `Path`s), with stdout and stderr captured and `sys.exit` caught; anything else
goes through click's test runner, so its argument checks and messages are click's.
"""
import io
import json
import os
import sys
import traceback
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

from click.testing import CliRunner

import skills_ref.parser
from skills_ref.cli import main

# `validate` and `to-prompt` of one skill parse the same frontmatter; strictyaml's load is pure
# and most of the oracle's time, so each text is parsed once (its error, if any, raised again).
_load = skills_ref.parser.strictyaml.load
_cache = {}


def _cached_load(text):
    if text not in _cache:
        try:
            _cache[text] = (True, _load(text))
        except Exception as error:  # noqa: BLE001 - replayed exactly as raised
            _cache[text] = (False, error)
    ok, value = _cache[text]
    if ok:
        return value
    raise value


class _CachedStrictYaml:
    YAMLError = skills_ref.parser.strictyaml.YAMLError
    load = staticmethod(_cached_load)


skills_ref.parser.strictyaml = _CachedStrictYaml

runner = CliRunner(mix_stderr=False)
commands = {"validate": main.commands["validate"], "to-prompt": main.commands["to-prompt"]}


def direct(command, paths):
    out, err = io.StringIO(), io.StringIO()
    status = 0
    with redirect_stdout(out), redirect_stderr(err):
        try:
            if command == "validate":
                commands[command].callback(Path(paths[0]))
            else:
                commands[command].callback(tuple(Path(p) for p in paths))
        except SystemExit as stop:
            status = stop.code if isinstance(stop.code, int) else 1
        except Exception:  # noqa: BLE001 - what Python prints for an uncaught exception
            err.write("".join(traceback.format_exc()))
            status = 1
    return {"stdout": out.getvalue(), "stderr": err.getvalue(), "status": status}


def through_click(command, paths):
    result = runner.invoke(main, [command, *paths], prog_name="skills-ref")
    stderr = result.stderr
    status = result.exit_code
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        stderr += "".join(traceback.format_exception(*result.exc_info))
        status = 1
    return {"stdout": result.stdout, "stderr": stderr, "status": status}


for line in sys.stdin:
    case = json.loads(line)
    command, paths = case["command"], case["paths"]
    usable = command in commands and len(paths) > 0 and all(os.path.exists(p) for p in paths)
    if command == "validate" and len(paths) != 1:
        usable = False
    answer = direct(command, paths) if usable else through_click(command, paths)
    sys.stdout.write(json.dumps(answer) + "\n")
    sys.stdout.flush()
