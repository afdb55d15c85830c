"""Regenerate docs/rules.md (the rule table, then the pages SARIF helpUri links point at):
``python -m tests.rules_doc``."""

from __future__ import annotations

from pathlib import Path

DOC = Path(__file__).resolve().parent.parent / "docs" / "rules.md"
BEGIN, END = "<!-- rules-table:begin -->", "<!-- rules-table:end -->"

#: Above the table (moved from the README, issue 22).
INTRO = """## All rules

The catalog is data: `rules/*.yaml`, validated when loaded, each rule with examples that must and must not
match (tested automatically). `hermes-audit explain CODE` prints a rule's documentation (HS codes too:
Hermes' own skills guard, from `rules/skills-guard.yaml`, which `profile` reports). The table below is
generated from `rules/` (`hermes-audit rules --format markdown`; a test keeps it in sync), and one section
per rule follows it.

### Rule file schema

A rule file is a mapping with `family` (kebab-case, the family of every rule in it) and `rules`, a list of
rules. Loading (`hermes_audit/patterns/catalog.py`) refuses, naming the file and the rule, any key not listed
here, a pattern that does not compile, a code or name already used, and a YAML tag, alias bomb or file over 2
MiB. `rules/hermes-parity.yaml` (Hermes' own catalogs, per version) has a schema of its own, described in it.

| key | required | meaning |
|---|---|---|
| `code` | yes | `HA101`: `H`, a letter, three digits; unique in the catalog |
| `name` | yes | kebab-case, unique (`instruction-override`) |
| `title`, `message`, `help` | yes | the rule's one line, its finding message (`{match}` and a detector's fields are filled in), and its documentation in Markdown (what it finds, why it matters, an example, the fix) |
| `severity`, `confidence` | yes | `info`, `low`, `medium`, `high`, `critical`; `low`, `medium`, `high` |
| `pattern` / `patterns` | one of these or `detector` | regular expressions (the `regex` module), run under a deadline |
| `lists` | no | named allowlists as data: `{{name}}` in a pattern stands for the alternation of the list's literal entries; an entry without `/` is a whole host name (it must end there), one with `/` a host and the start of a path. A reference to an undefined list, or a list no pattern uses, is an error (HA501's `vendor_installers`, `forges`, `package_hosts`) |
| `flags` | no | of `ignorecase` (the default when none is given), `multiline`, `dotall` |
| `view` | no | the text the patterns read: `raw` (default), `nfkc`, `deobfuscated`, `decoded` |
| `detector`, `params` | one of these or patterns | a built-in detector by name and its parameters (patterns in `params` are data too) |
| `kinds` | no | the document kinds the rule reads: `all` (default), a group (`context`, `soul`, `memory`, `skill`, `distribution`) or a kind |
| `examples` | yes | `match` and `no_match`: lists of texts the rule must and must not find (tests/test_catalog.py) |
| `fix`, `references` | no | the fix line of a finding; links |
| `demote_in_examples` | no | `true` (default): a match that the text presents as an example, a quote or a negation is graded down (docs/detection.md) |
| `code_performs` | no | `false` (default). `true`: a shell command of the rule inside inline code keeps its full severity unless its sentence, its line or the line that introduces its list describes or forbids it ("attackers hide `...`", "never run `...`"); set on secret exfiltration (HA401), SSH-key persistence (HA503) and reverse shells (HA504) |
| `yields_to` | no | codes of rules that say more about the same text: this rule's finding is dropped where a finding of one of them covers its span in the same file (HA305 yields to HA301 on one comment) |
"""


def table() -> str:
    from hermes_audit.cli.rules_cmd import rules_markdown
    from hermes_audit.patterns.catalog import load_catalog

    return rules_markdown(load_catalog().all_rules())


def generated() -> str:
    from hermes_audit.patterns.catalog import load_catalog
    from hermes_audit.reporters.sarif import rules_reference_markdown

    reference = rules_reference_markdown(load_catalog().all_rules())
    head, sep, sections = reference.partition("\n## ")  # the title and its lines, then the first rule
    return head.rstrip("\n") + "\n\n" + INTRO + "\n" + BEGIN + "\n" + table() + END + "\n" + sep + sections


if __name__ == "__main__":
    DOC.write_text(generated(), encoding="utf-8")
