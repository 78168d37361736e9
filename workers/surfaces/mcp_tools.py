"""The MCP protocol bullpen's tools need, spoken directly: initialize, ping, tools/list,
tools/call (JSON-RPC 2.0, one message a line).

The SDK's server costs seconds to import (its pydantic models of every protocol
version), and an agent's first handoff can reach it before its tools exist. What a
client sees is the same: a tool's input schema comes from its signature, a board error is
a tool error (`isError`) with its one line, a request for an unknown method is -32601.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

PROTOCOL_VERSIONS = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603

# The annotations bullpen's tools use (strings: the module has postponed annotations),
# as JSON Schema, and the Python types a value of each must be.
_TYPES: dict[str, tuple[dict[str, Any], tuple[type, ...]]] = {
    "str": ({"type": "string"}, (str,)),
    "int": ({"type": "integer"}, (int,)),
    "bool": ({"type": "boolean"}, (bool,)),
    "list[str]": ({"type": "array", "items": {"type": "string"}}, (list,)),
    "list[int]": ({"type": "array", "items": {"type": "integer"}}, (list,)),
}


class ToolError(Exception):
    """A tool's refusal or failure: the client gets it as a tool error, the server goes on."""


class Tool:
    """One bound method of the tools object, with the schema of its parameters."""

    def __init__(self, name: str, method: Callable[..., str]) -> None:
        self.name, self.method = name, method
        self.description = inspect.cleandoc(method.__doc__ or "")
        self.params: dict[str, tuple[str, bool, bool]] = {}  # name: (type, optional, required)
        properties, required = {}, []
        for param in inspect.signature(method).parameters.values():
            annotation = str(param.annotation)
            optional = annotation.endswith(" | None")
            base = annotation.removesuffix(" | None")
            schema = dict(_TYPES[base][0])
            if param.default is inspect.Parameter.empty:
                required.append(param.name)
            else:
                schema["default"] = param.default
            properties[param.name] = ({"anyOf": [schema, {"type": "null"}]}
                                      if optional else schema)
            self.params[param.name] = (base, optional, param.default is inspect.Parameter.empty)
        self.schema = {"type": "object", "properties": properties, "required": required}

    def listing(self) -> dict[str, Any]:
        return {"name": self.name, "description": self.description, "inputSchema": self.schema}

    def call(self, arguments: dict[str, Any]) -> str:
        """The tool's text; ToolError when the arguments do not fit its signature."""
        for name, (base, optional, required) in self.params.items():
            if name not in arguments:
                if required:
                    raise ToolError(f"{self.name}: missing argument {name!r}")
                continue
            value = arguments[name]
            if value is None and optional:
                continue
            if not _fits(value, base):
                raise ToolError(f"{self.name}: {name} must be {_TYPES[base][0]['type']}"
                                + (f" of {_TYPES[base][0]['items']['type']}s"
                                   if base.startswith("list") else ""))
        known = {k: v for k, v in arguments.items() if k in self.params}  # extras ignored
        return self.method(**known)


def _fits(value: object, base: str) -> bool:
    if isinstance(value, bool) and base != "bool":
        return False  # JSON true is not an integer
    if not isinstance(value, _TYPES[base][1]):
        return False
    if base == "list[str]":
        return isinstance(value, list) and all(isinstance(item, str) for item in value)
    if base == "list[int]":
        return isinstance(value, list) and all(
            isinstance(item, int) and not isinstance(item, bool) for item in value)
    return True


class Protocol:
    """Answers one parsed JSON-RPC message at a time (None: nothing to answer)."""

    def __init__(self, tools: list[Tool], name: str, instructions: str) -> None:
        self.tools = {tool.name: tool for tool in tools}
        self.name, self.instructions = name, instructions

    def answer(self, message: dict[str, Any]) -> dict[str, Any] | None:
        if "method" not in message or "id" not in message:
            return None  # a notification, or the client's answer to a request: nothing back
        method, params = message["method"], message.get("params") or {}
        handler = {"initialize": self._initialize, "ping": lambda _: {},
                   "tools/list": self._list, "tools/call": self._call}.get(method)
        if handler is None:
            return _error(message["id"], METHOD_NOT_FOUND, f"method not found: {method}")
        try:
            result = handler(params)
        except ToolError as error:
            return _error(message["id"], INVALID_PARAMS, str(error))
        except Exception as error:  # a bug in bullpen: an answer, never the server's end
            return _error(message["id"], INTERNAL_ERROR,
                          f"unexpected {type(error).__name__}: {error}")
        return {"jsonrpc": "2.0", "id": message["id"], "result": result}

    def _initialize(self, params: dict[str, Any]) -> dict[str, Any]:
        asked = params.get("protocolVersion")
        return {"protocolVersion": asked if asked in PROTOCOL_VERSIONS else PROTOCOL_VERSIONS[0],
                "capabilities": {"tools": {"listChanged": False}},
                "serverInfo": {"name": self.name, "version": ""},
                "instructions": self.instructions}

    def _list(self, params: dict[str, Any]) -> dict[str, Any]:
        return {"tools": [tool.listing() for tool in self.tools.values()]}

    def _call(self, params: dict[str, Any]) -> dict[str, Any]:
        tool = self.tools.get(str(params.get("name")))
        arguments = params.get("arguments") or {}
        if tool is None or not isinstance(arguments, dict):
            what = (f"unknown tool {params.get('name')!r}" if tool is None
                    else "arguments are a JSON object")
            return _text(what, error=True)
        try:
            return _text(tool.call(arguments))
        except ToolError as error:
            return _text(str(error), error=True)
        except (TypeError, ValueError) as error:  # e.g. an argument the tool cannot use
            return _text(f"{tool.name}: {error}", error=True)


def _text(text: str, error: bool = False) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": text}], "isError": error}


def _error(request_id: object, code: int, message: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}
