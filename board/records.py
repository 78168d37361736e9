"""`record`: board's frozen records, made without the dataclasses module.

Importing dataclasses pulls in inspect (ast, dis, tokenize, linecache), and each
`@dataclass` compiles its methods from source with `exec`: together a third of the
imports of `bullpen note send` and of an agent's hook process, which run on every turn.
A record's methods are shared functions that read the class's field names instead.

For the type checker `record` *is* `dataclasses.dataclass`, so fields, defaults, frozen
assignment and the generated `__init__` are checked exactly as for a dataclass; at run
time a record behaves like one: positional or keyword arguments with defaults, `==`,
`hash`, a `repr` that names each field, and assignment refused when frozen. `field` takes
`default=` or `default_factory=`; `fields`, `as_dict` and `replace` stand in for
dataclasses' `fields`, `asdict` and `replace`.

The rule (docs/development.md): what the hook process and `note send` can load —
`board`, `workers.agents`, `workers.surfaces`, `workers.logs`, `tui.cli` — uses `record`
and imports `dataclasses` only under TYPE_CHECKING; the rest of bullpen runs in long-lived
processes or commands a human types, and uses `dataclasses` (tests/unit/test_record_rule.py).
"""

from __future__ import annotations

TYPE_CHECKING = False  # not typing's: this module is on every CLI call's path
if TYPE_CHECKING:
    from collections.abc import Callable
    from dataclasses import dataclass as record
    from dataclasses import field, replace
    from typing import Any


class FrozenRecordError(AttributeError):
    """Assignment to a field of a frozen record (dataclasses' FrozenInstanceError)."""


_MISSING = object()


class _Factory:
    """A default made anew for each record (`field(default_factory=list)`)."""

    def __init__(self, make: Callable[[], object]) -> None:
        self.make = make


def fields(instance_or_class: object) -> tuple[str, ...]:
    """The record's field names, in declaration order (base records' first)."""
    return getattr(instance_or_class, "__record_fields__")  # noqa: B009 (set at run time)


def as_dict(value: Any) -> Any:
    """dataclasses.asdict: records become dicts, recursively through tuples, lists and
    dicts; everything else is returned as it is."""
    if hasattr(type(value), "__record_fields__"):
        return {name: as_dict(getattr(value, name)) for name in fields(value)}
    if isinstance(value, list | tuple):
        return type(value)(as_dict(item) for item in value)
    if isinstance(value, dict):
        return {as_dict(key): as_dict(item) for key, item in value.items()}
    return value


def _init(self: Any, *args: Any, **kwargs: Any) -> None:
    # Set operations and one dict update, in C: about a dataclass's own __init__ speed.
    cls = type(self)
    names = cls.__record_fields__
    if len(args) > len(names):
        raise TypeError(f"{cls.__name__}() takes {len(names)} arguments, {len(args)} given")
    values = dict(zip(names, args, strict=False))
    if kwargs:
        unknown = kwargs.keys() - cls.__record_names__
        if unknown:
            raise TypeError(f"{cls.__name__}() got an unexpected keyword argument"
                            f" {min(unknown)!r}")
        twice = kwargs.keys() & values.keys()
        if twice:
            raise TypeError(f"{cls.__name__}() got multiple values for argument"
                            f" {min(twice)!r}")
        values.update(kwargs)
    if len(values) < len(names):
        defaults = cls.__record_defaults__
        for name in names:
            if name in values:
                continue
            value = defaults.get(name, _MISSING)
            if value is _MISSING:
                raise TypeError(f"{cls.__name__}() missing required argument {name!r}")
            values[name] = value.make() if type(value) is _Factory else value
    self.__dict__.update(values)
    post_init = cls.__record_post_init__
    if post_init is not None:  # as a dataclass: after every field is set
        post_init(self)


def _values(self: Any) -> tuple:
    return tuple(getattr(self, name) for name in type(self).__record_fields__)


def _repr(self: Any) -> str:
    shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__record_fields__)
    return f"{type(self).__qualname__}({shown})"


def _eq(self: Any, other: object) -> bool:
    if type(other) is not type(self):
        return NotImplemented
    return _values(self) == _values(other)


def _hash(self: Any) -> int:
    return hash(_values(self))


def _frozen_setattr(self: Any, name: str, value: object) -> None:
    raise FrozenRecordError(f"cannot assign to field {name!r}: {type(self).__name__} is frozen")


def _frozen_delattr(self: Any, name: str) -> None:
    raise FrozenRecordError(f"cannot delete field {name!r}: {type(self).__name__} is frozen")


def _make(cls: type, frozen: bool) -> type:
    inherited: tuple[str, ...] = ()
    defaults: dict[str, object] = {}
    for base in reversed(cls.__mro__[1:]):
        inherited += tuple(name for name in base.__dict__.get("__record_fields__", ())
                           if name not in inherited)
        defaults.update(base.__dict__.get("__record_defaults__", {}))
    own = [name for name, kind in cls.__dict__.get("__annotations__", {}).items()
           if not str(kind).startswith(("ClassVar", "typing.ClassVar"))]
    names = inherited + tuple(name for name in own if name not in inherited)
    for name in own:
        if name in cls.__dict__:
            default = cls.__dict__[name]
            if type(default) is _Factory:
                delattr(cls, name)  # as a dataclass: the class keeps no shared default
            defaults[name] = default
    for earlier, name in zip(names, names[1:], strict=False):
        if earlier in defaults and name not in defaults:
            raise TypeError(f"{cls.__name__}: field {name!r} without a default follows one"
                            " with a default")
    methods: dict[str, Callable[..., Any] | None] = {"__init__": _init, "__repr__": _repr,
                                                     "__eq__": _eq}
    if frozen:
        methods.update(__hash__=_hash, __setattr__=_frozen_setattr,
                       __delattr__=_frozen_delattr)
    else:
        methods["__hash__"] = None  # eq without frozen: unhashable, as a dataclass
    for name, method in methods.items():
        if name not in cls.__dict__:
            setattr(cls, name, method)
    for name, value in (("__record_fields__", names), ("__record_names__", frozenset(names)),
                        ("__record_defaults__", defaults), ("__match_args__", names),
                        ("__record_post_init__", getattr(cls, "__post_init__", None))):
        setattr(cls, name, value)
    return cls


if not TYPE_CHECKING:

    def field(*, default=_MISSING, default_factory=_MISSING):
        """dataclasses.field's `default` or `default_factory` (one of them)."""
        if default_factory is not _MISSING:
            return _Factory(default_factory)
        if default is _MISSING:
            raise TypeError("field() needs default= or default_factory=")
        return default

    def replace(obj, /, **changes):
        """dataclasses.replace: a copy of the record with `changes` (a dataclass too)."""
        names = getattr(type(obj), "__record_fields__", None)
        if names is None:
            import dataclasses

            return dataclasses.replace(obj, **changes)
        return type(obj)(**{name: getattr(obj, name) for name in names} | changes)

    def record(cls=None, /, *, frozen=False):
        """@record or @record(frozen=True), as @dataclass is written."""
        if cls is None:
            return lambda cls: _make(cls, frozen)
        return _make(cls, frozen)
