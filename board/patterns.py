"""`lazy`: a regular expression compiled on its first use, not at import.

An agent's hook process and `bullpen note send` import the input rules and the kinds'
screen readers, and use few of their patterns; compiling all of them at import was a
tenth of those processes' own cost. A lazy pattern is a `re.Pattern` to the type checker
and forwards every attribute (`match`, `search`, `sub`, `pattern` …) to the compiled one.
"""

from __future__ import annotations

import re

TYPE_CHECKING = False  # not typing's: this module is on every CLI call's path
if TYPE_CHECKING:

    def lazy(pattern: str, flags: int = 0) -> re.Pattern[str]: ...

else:

    class _Lazy:
        def __init__(self, pattern, flags):
            self._args = (pattern, flags)
            self._compiled = None

        def __getattr__(self, name):  # only for names not yet kept on the instance
            compiled = self._compiled
            if compiled is None:
                compiled = self._compiled = re.compile(*self._args)
            value = getattr(compiled, name)
            self.__dict__[name] = value  # the next `.match` is a plain attribute
            return value

        def __repr__(self):
            return f"lazy({self._args[0]!r})"

    def lazy(pattern, flags=0):
        return _Lazy(pattern, flags)
