"""Oracle: hermes-agent 0.19.0 profile distributions (hermes_cli/profile_distribution.py).

stdin:  {"cases": [{"source": str (a local directory), "name": str|null, "install": bool}]}
        Each case runs with a fresh HERMES_HOME. ``plan_install`` is always run; with ``install`` the real
        ``install_distribution`` copies the distribution and the resulting profile tree is listed.
stdout: [{"error": str|null, "error_type": str|null, "name": str|null, "files": [...]|null,
          "env_example": str|null, "manifest": {...}|null, "has_cron": bool|null}]
        ``files``: every path under the installed profile, relative, "/"-separated, directories ending in "/".
"""
import json
import logging
import os
import sys
import tempfile
from pathlib import Path

logging.disable(logging.CRITICAL)

req = json.load(sys.stdin)
out = []
for case in req["cases"]:
    with tempfile.TemporaryDirectory(prefix="hermes-oracle-home-") as home, \
            tempfile.TemporaryDirectory(prefix="hermes-oracle-work-") as work:
        os.environ["HERMES_HOME"] = home
        from hermes_cli.profile_distribution import (  # noqa: E402
            DistributionError, install_distribution, plan_install)
        import yaml  # noqa: E402

        res = {"error": None, "error_type": None, "name": None, "files": None, "env_example": None,
               "manifest": None, "has_cron": None}
        try:
            plan = plan_install(case["source"], Path(work), override_name=case.get("name"))
            res["name"] = plan.manifest.name
            res["has_cron"] = plan.has_cron
            if case.get("install"):
                plan = install_distribution(case["source"], name=case.get("name"))
                target = plan.target_dir
                files = []
                for dirpath, dirnames, filenames in os.walk(target):
                    rel = os.path.relpath(dirpath, target)
                    for d in dirnames:
                        files.append((d if rel == "." else f"{rel}/{d}").replace(os.sep, "/") + "/")
                    for f in filenames:
                        files.append((f if rel == "." else f"{rel}/{f}").replace(os.sep, "/"))
                res["files"] = sorted(files)
                env = target / ".env.EXAMPLE"
                res["env_example"] = env.read_text(encoding="utf-8") if env.is_file() else None
                data = yaml.safe_load((target / "distribution.yaml").read_text(encoding="utf-8"))
                data.pop("installed_at", None)
                res["manifest"] = data
        except (DistributionError, ValueError) as exc:
            res["error"] = str(exc)
            res["error_type"] = type(exc).__name__
        out.append(res)
json.dump(out, sys.stdout)
