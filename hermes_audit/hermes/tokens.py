"""Token estimates for prompt budgets.

Two methods, chosen once per run and always named in the output:

* ``tiktoken:<encoding>``: a real tokenizer, when the optional ``tiktoken``
  package is installed *and* its encoding data can be loaded (``o200k_base``,
  else ``cl100k_base``; tiktoken may need to download the data the first time,
  and any failure falls back to the estimate). It is an OpenAI tokenizer: other
  model families count differently, typically within 10-20 %.
* ``chars/4``: ``ceil(characters / 4)``, the rough estimate Hermes itself uses
  (``estimate_tokens_rough`` in ``agent/model_metadata.py`` of hermes-agent
  0.19.0: ``(len(text) + 3) // 4``).

``tiktoken`` is never a dependency of hermes-audit; install it yourself to get
tokenizer counts. Characters are Python code points.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Optional

#: Encodings tried, in order.
ENCODINGS = ("o200k_base", "cl100k_base")
#: Name of the fallback method.
CHARS_PER_TOKEN_METHOD = "chars/4"
CHARS_PER_TOKEN = 4


def chars_to_tokens(chars: int) -> int:
    """``ceil(chars / 4)``: Hermes' rough estimate for a text of ``chars`` characters."""
    return (max(0, chars) + CHARS_PER_TOKEN - 1) // CHARS_PER_TOKEN


@dataclass
class TokenCounter:
    """Counts tokens with :attr:`method` (``tiktoken:<encoding>`` or ``chars/4``)."""

    method: str
    _encode: Optional[Callable[[str], Any]] = None

    @property
    def exact_tokenizer(self) -> bool:
        return self._encode is not None

    def count(self, text: str) -> int:
        """Tokens in ``text`` (the estimate for the fallback method)."""
        if self._encode is None:
            return chars_to_tokens(len(text))
        try:
            return len(self._encode(text))
        except Exception:  # a tokenizer failing on odd input must not break a report
            return chars_to_tokens(len(text))

    def count_chars(self, chars: int) -> int:
        """Tokens for a text known only by its size (a placeholder): always ``chars/4``."""
        return chars_to_tokens(chars)

    def describe(self) -> str:
        if self._encode is None:
            return "characters / 4, rounded up (Hermes' own rough estimate; install tiktoken for tokenizer counts)"
        return f"{self.method} (an OpenAI tokenizer; other model families differ somewhat)"


def _load_tiktoken() -> Optional[TokenCounter]:
    try:
        import tiktoken  # optional, never a dependency
    except Exception:
        return None
    for name in ENCODINGS:
        try:
            enc = tiktoken.get_encoding(name)
            enc.encode("probe")
        except Exception:
            continue
        return TokenCounter(f"tiktoken:{name}", lambda t, _e=enc: _e.encode(t, disallowed_special=()))
    return None


def get_counter(method: str = "auto") -> TokenCounter:
    """A counter: ``auto`` (tiktoken when usable, else chars/4), ``chars`` (always chars/4) or
    ``tiktoken`` (raises ``ValueError`` when tiktoken is not usable)."""
    if method == "chars":
        return TokenCounter(CHARS_PER_TOKEN_METHOD)
    tk = _load_tiktoken()
    if tk is not None:
        return tk
    if method == "tiktoken":
        raise ValueError("tiktoken is not installed or its encoding data cannot be loaded")
    return TokenCounter(CHARS_PER_TOKEN_METHOD)
