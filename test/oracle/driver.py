"""Runs the reference CLI over many cases in one process.

Each stdin line is {"command": "validate" | "to-prompt", "paths": [...]}; each stdout line is
{"stdout", "stderr", "status"} as the command line `skills-ref COMMAND PATHS...` would give,
produced by click's own runner so argument checks, messages and exit codes are click's.
"""
import json
import sys
import traceback

from click.testing import CliRunner

from skills_ref.cli import main

runner = CliRunner(mix_stderr=False)

for line in sys.stdin:
    case = json.loads(line)
    result = runner.invoke(main, [case["command"], *case["paths"]], prog_name="skills-ref")
    stderr = result.stderr
    status = result.exit_code
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        # What Python prints for an uncaught exception, and its exit status.
        stderr += "".join(traceback.format_exception(*result.exc_info))
        status = 1
    sys.stdout.write(json.dumps({"stdout": result.stdout, "stderr": stderr, "status": status}) + "\n")
    sys.stdout.flush()
