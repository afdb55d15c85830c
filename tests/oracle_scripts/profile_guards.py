"""Oracle: hermes-agent 0.19.0 skills guard, cron prompt scanner and MCP entry guard.

stdin:  {"skills": [path, ...], "prompts": [str, ...], "mcp": [[name, entry], ...], "catalogs": bool}
stdout: {"skills": [{"verdict": str, "findings": [[pattern_id, severity, category, file, line]], "allowed": bool|null,
                     "reason": str}],
         "prompts": [str],            # _scan_cron_prompt result ("" when allowed)
         "mcp": [[issue, ...]],       # validate_mcp_server_entry
         "skills_catalog": [[regex, id, severity, category]] | null,
         "cron_catalog": {"threat": [[regex, id]], "exfil": [[regex, id]], "secret_var": str} | null}
"""
import json
import logging
import sys
from pathlib import Path

logging.disable(logging.CRITICAL)

from tools import skills_guard  # noqa: E402
from tools import cronjob_tools  # noqa: E402
from hermes_cli.mcp_security import validate_mcp_server_entry  # noqa: E402

req = json.load(sys.stdin)
out = {"skills": [], "prompts": [], "mcp": [], "skills_catalog": None, "cron_catalog": None}
for p in req.get("skills", []):
    r = skills_guard.scan_skill(Path(p), source="community")
    allowed, reason = skills_guard.should_allow_install(r)
    out["skills"].append({
        "verdict": r.verdict,
        "findings": [[f.pattern_id, f.severity, f.category, f.file, f.line] for f in r.findings],
        "allowed": allowed, "reason": reason,
    })
for prompt in req.get("prompts", []):
    out["prompts"].append(cronjob_tools._scan_cron_prompt(prompt))
for name, entry in req.get("mcp", []):
    out["mcp"].append(validate_mcp_server_entry(name, entry))
if req.get("catalogs"):
    out["skills_catalog"] = [list(p[:4]) for p in skills_guard.THREAT_PATTERNS]
    out["cron_catalog"] = {
        "threat": [list(p) for p in cronjob_tools._CRON_THREAT_PATTERNS],
        "exfil": [list(p) for p in cronjob_tools._CRON_EXFIL_COMMAND_PATTERNS],
        "secret_var": cronjob_tools._CRON_SECRET_VAR_RE,
        "invisible": sorted(f"U+{ord(c):04X}" for c in cronjob_tools._CRON_INVISIBLE_CHARS),
        "emoji_ranges": [list(r) for r in cronjob_tools._EMOJI_NEIGHBOUR_CP_RANGES],
        "policy": {k: list(v) for k, v in skills_guard.INSTALL_POLICY.items()},
        "limits": [skills_guard.MAX_FILE_COUNT, skills_guard.MAX_TOTAL_SIZE_KB, skills_guard.MAX_SINGLE_FILE_KB],
        "scannable": sorted(skills_guard.SCANNABLE_EXTENSIONS),
        "binary": sorted(skills_guard.SUSPICIOUS_BINARY_EXTENSIONS),
    }
json.dump(out, sys.stdout)
