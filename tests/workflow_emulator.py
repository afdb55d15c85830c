"""An emulator of the command parsers of CI runners, stricter than the runners themselves.

Restated from the GitHub runner's ``ActionCommand.TryParseV2`` / ``TryParse`` (actions/runner,
``src/Runner.Common/ActionCommand.cs``) and Azure Pipelines' ``##vso[`` commands, with every choice made
the way that recognises *more* commands than the real parser:

* lines end at LF, CR and CR LF (``StreamReader.ReadLine``);
* control, format, unassigned and private-use characters and SGR colour codes are deleted first (a
  culture-sensitive ``StartsWith`` / ``IndexOf`` may skip them);
* ``::name ...::data`` after any leading white space (Python's and .NET's) is a command, whatever the
  name (the real runner knows a dozen names, and ``::stop-commands::TOKEN`` makes ``::TOKEN::`` one);
* ``##[name ...]`` anywhere in a line is a command, whatever the name, and so is ``##vso[`` in any case.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import regex

#: Characters the Unicode Collation Algorithm's default table gives no weight at all (``[.0000.0000.0000]``),
#: which a culture-aware compare skips. Read from the table Perl's Unicode::Collate ships (on Debian) where it
#: is installed; the eighth red team's spacing marks and letter (issue 18) are listed in any case, so the
#: emulator models the runner independently of the category model hermes-audit's own code uses.
_ALLKEYS = "/usr/share/perl/5.36.0/Unicode/Collate/allkeys.txt"


def _zero_weight() -> str:
    chars = {chr(c) for c in (0x1D165, 0x1D166, *range(0x1D16D, 0x1D173), 0x0F3E, 0x0F3F, 0x1CE1, 0x1CF7, 0xFE73)}
    try:
        with open(_ALLKEYS, encoding="utf-8") as fh:
            for ln in fh:
                code, sep, rest = ln.partition(";")
                if sep and rest.lstrip().startswith("[.0000.0000.0000]") and " " not in code.strip():
                    chars.add(chr(int(code.strip(), 16)))
    except (OSError, ValueError):
        pass
    chars -= {"\n", "\r"}
    return "".join(regex.escape(c) for c in sorted(chars))


_IGNORABLE = regex.compile(r"\x1b\[[0-9;]*m|[\p{Cc}\p{Cf}\p{Cn}\p{Co}\p{Cs}\p{Mn}\p{Me}"
                           r"\p{Default_Ignorable_Code_Point}" + _zero_weight() + r"--[\n\r]]", regex.V1)
_LINES = re.compile(r"\r\n|\r|\n")
_WHITE = regex.compile(r"^[\p{White_Space}\x1c-\x1f]*", regex.V1)


@dataclass(frozen=True)
class Command:
    form: str  # "v2" (::name::), "legacy" (##[name]) or "vso" (##vso[name])
    name: str
    line: str


def commands(text: str) -> list[Command]:
    """Every line of ``text`` a runner could obey, as :class:`Command`."""
    found = []
    for raw in _LINES.split(text):
        line = _IGNORABLE.sub("", raw)
        trimmed = line[_WHITE.match(line).end():]
        if trimmed.startswith("::") and "::" in trimmed[2:]:
            found.append(Command("v2", trimmed[2:trimmed.index("::", 2)].split(" ")[0], raw))
            continue
        i = line.find("##[")
        if i >= 0 and "]" in line[i:]:
            found.append(Command("legacy", line[i + 3:line.index("]", i)].split(" ")[0], raw))
            continue
        j = line.lower().find("##vso[")
        if j >= 0:
            found.append(Command("vso", line[j + 6:].split("]")[0].split(" ")[0], raw))
    return found
