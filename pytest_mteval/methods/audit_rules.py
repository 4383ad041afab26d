"""What the static audit looks for, and what each dependency class allows (spec §8.6).

The tables are data, kept apart from the syntax walk in ``audit.py`` so that a reviewer can
read the policy on one page: dotted names and prefixes mapped to a category, the categories
each class allows outright, and the dependency kinds that allow more in S and O.
"""

from __future__ import annotations

import re
from typing import Final

CATEGORIES: Final = (
    "network",
    "llm_client",
    "introspection",
    "subprocess",
    "native_code",
    "outside_files",
    "dynamic_code",
)
#: Modules whose import is a finding (a dotted name matches itself and its submodules).
MODULES: Final[dict[str, str]] = {
    **dict.fromkeys(
        [
            "socket",
            "socketserver",
            "ssl",
            "http.client",
            "http.server",
            "urllib.request",
            "urllib3",
            "requests",
            "httpx",
            "aiohttp",
            "websocket",
            "websockets",
            "ftplib",
            "smtplib",
            "poplib",
            "imaplib",
            "telnetlib",
            "xmlrpc.client",
            "xmlrpc.server",
            "grpc",
            "paramiko",
            "pycurl",
            "dns",
            "asyncssh",
            "openai",
            "anthropic",
        ],
        "network",
    ),
    **dict.fromkeys(("pytest_mteval.llm.client", "pytest_mteval.methods.chat"), "llm_client"),
    **dict.fromkeys(("gc", "tracemalloc"), "introspection"),
    **dict.fromkeys(("subprocess", "pty", "multiprocessing", "pexpect", "sh"), "subprocess"),
    **dict.fromkeys(("ctypes", "_ctypes", "cffi"), "native_code"),
    **dict.fromkeys(("importlib", "runpy", "pickle", "marshal", "dill", "imp"), "dynamic_code"),
}
#: Calls and attributes that are a finding wherever they appear.
NAMES: Final[dict[str, str]] = {
    **dict.fromkeys(
        (
            "asyncio.open_connection",
            "asyncio.open_unix_connection",
            "asyncio.start_server",
            "asyncio.start_unix_server",
        ),
        "network",
    ),
    **dict.fromkeys(
        (
            "sys.argv",
            "sys.orig_argv",
            "sys._getframe",
            "sys.settrace",
            "sys.setprofile",
            "sys.modules",
            "sys.audit",
            "sys.addaudithook",
            "inspect.stack",
            "inspect.currentframe",
            "inspect.getouterframes",
            "inspect.trace",
            "traceback.extract_stack",
            "traceback.walk_stack",
        ),
        "introspection",
    ),
    **dict.fromkeys(
        (
            "os.system",
            "os.popen",
            "os.fork",
            "os.forkpty",
            "os.posix_spawn",
            "os.posix_spawnp",
            "asyncio.create_subprocess_exec",
            "asyncio.create_subprocess_shell",
            "concurrent.futures.ProcessPoolExecutor",
        ),
        "subprocess",
    ),
    **dict.fromkeys(
        ("exec", "eval", "compile", "__import__", "__builtins__", "builtins"),
        "dynamic_code",
    ),
    **dict.fromkeys(("os.path.expanduser", "pathlib.Path.home"), "outside_files"),
}
#: Name prefixes of call families (os.spawnl, os.execvp ...).
PREFIXES: Final = (("os.spawn", "subprocess"), ("os.exec", "subprocess"))
#: Calls whose first argument is a path.
PATH_CALLS: Final = frozenset(
    {
        "open",
        "io.open",
        "os.open",
        "os.listdir",
        "os.scandir",
        "os.walk",
        "os.stat",
        "os.remove",
        "os.unlink",
        "os.rename",
        "os.replace",
        "os.chdir",
        "os.makedirs",
        "os.mkdir",
        "glob.glob",
        "glob.iglob",
        "pathlib.Path",
        "pathlib.PurePath",
        "shutil.copy",
        "shutil.copyfile",
        "shutil.copytree",
        "shutil.rmtree",
        "shutil.move",
    }
)
NATIVE_SUFFIXES: Final = frozenset({".so", ".pyd", ".dylib", ".dll"})
#: Categories allowed outright in each class.
ALLOWED: Final[dict[str, frozenset[str]]] = {
    "S": frozenset({"dynamic_code"}),
    "O": frozenset({"dynamic_code"}),
    "A1": frozenset({"dynamic_code", "llm_client", "subprocess", "native_code", "outside_files"}),
    "A2": frozenset(set(CATEGORIES) - {"introspection"}),
    "X": frozenset(set(CATEGORIES) - {"introspection"}),
}
#: In S and O, a category allowed when a dependency of this kind is declared.
DECLARED_BY_KIND: Final = {
    "subprocess": "software",
    "native_code": "software",
    "outside_files": "data",
}
WHY: Final = {
    "network": "only A2 and X methods may reach the network themselves (S and O run offline, "
    "A1 reaches its model through the gateway: use ChatClient, docs/methods.md)",
    "llm_client": "S and O methods run offline: no LLM",
    "introspection": "no method may read the harness's memory, stack or command line",
    "subprocess": "an S or O method that runs programs must declare them (kind 'software')",
    "native_code": "an S or O method with native code must declare it (kind 'software')",
    "outside_files": "an S or O method reading outside its folder must declare the data "
    "(kind 'data')",
}

#: JavaScript modules (``require``, ``import``; ``node:`` prefix dropped) that are a finding.
JS_MODULES: Final[dict[str, str]] = {
    **dict.fromkeys(
        (
            "net",
            "http",
            "https",
            "http2",
            "dgram",
            "tls",
            "dns",
            "undici",
            "axios",
            "node-fetch",
            "got",
            "ws",
            "socket.io-client",
            "openai",
            "@anthropic-ai/sdk",
        ),
        "network",
    ),
    **dict.fromkeys(("inspector", "v8", "async_hooks", "trace_events"), "introspection"),
    **dict.fromkeys(("child_process", "cluster", "execa", "shelljs"), "subprocess"),
    **dict.fromkeys(("ffi-napi", "node-ffi", "bindings", "wasi"), "native_code"),
    **dict.fromkeys(("vm", "module", "worker_threads"), "dynamic_code"),
}
#: JavaScript global names that are a finding wherever they are used.
JS_GLOBALS: Final[dict[str, str]] = {
    **dict.fromkeys(
        ("fetch", "XMLHttpRequest", "WebSocket", "EventSource", "WebTransport"), "network"
    ),
    **dict.fromkeys(("eval", "WebAssembly"), "dynamic_code"),
}
#: JavaScript members of ``process``, ``globalThis``, ``os`` and ``module`` that are a finding.
JS_MEMBERS: Final[dict[str, str]] = {
    **dict.fromkeys(
        ("process.argv", "process.execArgv", "process.ppid", "process.report"), "introspection"
    ),
    **dict.fromkeys(("process.binding", "process.dlopen", "process._linkedBinding"), "native_code"),
    **dict.fromkeys(("process.kill",), "subprocess"),
    **dict.fromkeys(("globalThis.eval", "global.eval", "module.constructor"), "dynamic_code"),
    **dict.fromkeys(("globalThis.fetch", "global.fetch"), "network"),
    **dict.fromkeys(("os.homedir", "process.chdir"), "outside_files"),
}
#: JavaScript methods that are a finding whatever object they are called on (``os.homedir()``
#: after ``require('os')``).
JS_METHODS: Final[dict[str, str]] = {
    "homedir": "outside_files",
    "userInfo": "outside_files",
    "dlopen": "native_code",
    "getHeapSnapshot": "introspection",
}
#: JavaScript calls (by their last name: ``fs.readFileSync``, ``readFile``) taking a path first.
JS_PATH_CALLS: Final = frozenset(
    {
        "readFileSync",
        "readFile",
        "writeFileSync",
        "writeFile",
        "appendFileSync",
        "appendFile",
        "openSync",
        "open",
        "readdirSync",
        "readdir",
        "opendirSync",
        "opendir",
        "statSync",
        "stat",
        "lstatSync",
        "lstat",
        "createReadStream",
        "createWriteStream",
        "existsSync",
        "accessSync",
        "access",
        "rmSync",
        "rm",
        "unlinkSync",
        "unlink",
        "copyFileSync",
        "copyFile",
        "cpSync",
        "realpathSync",
        "watch",
        "watchFile",
    }
)
#: Suffixes of JavaScript files the audit reads.
JS_SUFFIXES: Final = frozenset({".js", ".cjs", ".mjs"})
#: Interpreters a command runtime may start for a script the audit reads.
PYTHON_INTERPRETERS: Final = re.compile(r"python(\d+(\.\d+)?)?")
NODE_INTERPRETERS: Final = re.compile(r"node(js)?")
