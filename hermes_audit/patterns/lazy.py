"""A regular expression compiled on first use (issue 8: start-up time): what the catalog holds for each
pattern it loaded from its validated cache (:mod:`hermes_audit.patterns.catalog`)."""

from __future__ import annotations

import re
from typing import Any

from hermes_audit.patterns import regex_code


class LazyPattern:
    """A regular expression compiled on first use (issue 8: start-up time).

    Stands in for the compiled ``re``/``regex`` pattern: ``search``, ``match``,
    ``fullmatch``, ``finditer``, ``findall``, ``sub``, ``split`` and any other
    attribute act on the compiled pattern. ``pattern`` and ``flags`` (the flags
    given to ``compile``) are available without compiling. A catalog loaded
    from YAML compiles every pattern at once (that is its validation); one
    loaded from the validated cache compiles each pattern the first time a
    text passes its keyword prefilter.
    """

    __slots__ = ("pattern", "flags", "module", "_compiled", "code")

    def __init__(self, module: str, pattern: str, flags: int, compiled: Any = None, code: Any = None) -> None:
        self.module = module  # "re" or "regex"
        self.pattern = pattern
        self.flags = flags
        self._compiled = compiled
        #: the op-codes (:mod:`hermes_audit.patterns.regex_code`, a ``regex`` or ``re`` record), when known
        self.code = code

    def get(self) -> Any:
        """The compiled pattern (compiled now if needed)."""
        c = self._compiled
        if c is None:
            if self.code is not None:
                c = (regex_code.from_code if self.module == "regex" else regex_code.re_from_code)(self.code)
            if c is None:
                if self.module == "regex":
                    import regex  # issue 8: only when no op-codes were recorded (see regex_code.c_module)

                    c = regex.compile(self.pattern, self.flags)
                else:
                    c = re.compile(self.pattern, self.flags)
            self._compiled = c
        return c

    @property
    def is_compiled(self) -> bool:
        return self._compiled is not None

    def search(self, *args: Any, **kwargs: Any) -> Any:
        return self.get().search(*args, **kwargs)

    def match(self, *args: Any, **kwargs: Any) -> Any:
        return self.get().match(*args, **kwargs)

    def fullmatch(self, *args: Any, **kwargs: Any) -> Any:
        return self.get().fullmatch(*args, **kwargs)

    def finditer(self, *args: Any, **kwargs: Any) -> Any:
        return self.get().finditer(*args, **kwargs)

    def findall(self, *args: Any, **kwargs: Any) -> Any:
        return self.get().findall(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.get(), name)

    def __reduce__(self) -> tuple:
        return (LazyPattern, (self.module, self.pattern, self.flags))

    def __repr__(self) -> str:
        return f"LazyPattern({self.module}, {self.pattern!r}, {self.flags})"


def materialize(pattern: Any) -> Any:
    """The compiled pattern behind ``pattern`` (a :class:`LazyPattern` or already compiled)."""
    return pattern.get() if isinstance(pattern, LazyPattern) else pattern
