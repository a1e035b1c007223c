# fixloop's warm Python linter worker: runs pylint and flake8 through their
# Python APIs on texts it is sent, in one long-lived process, so that each
# check does not pay for the interpreter's start and the tools' imports.
#
# Protocol: one JSON object a line on stdin, one a line on the original
# stdout (fd 1 is then pointed at stderr, so that nothing a tool prints
# there can break a response). The first line the worker prints is
# {"ready": true, "versions": {...}} once pylint and flake8 are imported, or
# {"error": "..."} when one cannot be.
#
# A request: {"id": N, "file": PATH, "dir": DIR, "text": BASE64,
#             "pylint": [ARGS] or null, "flake8": [ARGS] or null}
# A response: {"id": N, "pylint": RUN or null, "flake8": RUN or null,
#              "rss": KIB}
# where RUN is {"stdout": S, "stderr": S, "status": N}: what the command
# line tool run with the same arguments from DIR, reading TEXT on stdin,
# would have printed and exited with. A request that cannot be read at all
# gets {"id": N, "error": "..."}.
#
# Each run starts from the state a cold run starts from: the working
# directory is DIR, sys.path, sys.argv, sys.modules, os.environ, the
# warning filters and the recursion limit are restored after it (modules it
# imported from outside the interpreter's own library directories are
# forgotten), and astroid forgets the project's modules, where it found
# modules, and its inference caches (reset_astroid). It keeps the modules it
# parsed from the interpreter's library directories unless a project
# directory could shadow them (Keeper), which makes a run several times
# faster than with astroid's clear_cache.

import base64
import io
import json
import os
import sys
import traceback


def main():
    proto_out = os.fdopen(os.dup(1), "w", encoding="utf-8", newline="\n")
    os.dup2(2, 1)
    proto_in = io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8")
    script_dir = sys.argv[1] if len(sys.argv) > 1 else ""
    tools = (sys.argv[2] if len(sys.argv) > 2 else "pylint,flake8").split(",")
    # A cold run's sys.path starts with the directory of the pylint script
    # (/usr/bin), not the working directory.
    if sys.path and sys.path[0] in ("", "."):
        sys.path.pop(0)
    if script_dir:
        sys.path.insert(0, script_dir)
    versions = {"python": sys.version.split()[0]}
    manager = flake8_app = flake8_utils = None
    try:
        if "pylint" in tools:
            import astroid
            import pylint
            import pylint.lint
            manager = astroid.MANAGER
            versions.update(pylint=pylint.__version__, astroid=astroid.__version__)
        if "flake8" in tools:
            import flake8
            from flake8.main import application as flake8_app
            import flake8.utils as flake8_utils
            versions["flake8"] = flake8.__version__
    except Exception as exc:  # noqa: BLE001
        send(proto_out, {"error": "cannot import %s: %s: %s" % (" and ".join(tools), type(exc).__name__, exc)})
        return 3
    base = {"path": list(sys.path), "argv": list(sys.argv)}
    if manager is not None:
        base.update(whitelist=set(manager.extension_package_whitelist),
                    hooks=list(manager._failed_import_hooks),
                    max_inferable=manager.max_inferable_values,
                    cache=dict(manager.astroid_cache))
    lib_dirs = library_dirs()
    keeper = Keeper(lib_dirs, [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if os.path.isabs(p)])
    send(proto_out, {"ready": True, "versions": versions})
    for line in proto_in:
        line = line.strip()
        if not line:
            continue
        try:
            req = json.loads(line)
        except ValueError as exc:
            send(proto_out, {"id": None, "error": "unreadable request: %s" % exc})
            continue
        resp = {"id": req.get("id")}
        try:
            data = base64.b64decode(req.get("text") or "")
            os.chdir(req["dir"])
            if req.get("pylint") is not None and manager is not None:
                resp["pylint"] = lint_pylint(base, lib_dirs, manager, keeper, req["file"], req["pylint"], data)
            if req.get("flake8") is not None and flake8_app is not None:
                resp["flake8"] = isolated(base, lib_dirs, manager,
                                          lambda: run_flake8(flake8_app, flake8_utils, req["flake8"], data))
        except Exception as exc:  # noqa: BLE001
            resp = {"id": req.get("id"), "error": "%s: %s" % (type(exc).__name__, exc)}
        resp["rss"] = rss_kib()
        send(proto_out, resp)
    return 0


def send(out, obj):
    out.write(json.dumps(obj) + "\n")
    out.flush()


def library_dirs():
    """The interpreter's own library directories (the standard library,
    site-packages, dist-packages): modules imported from there are kept
    between runs."""
    import sysconfig
    dirs = set()
    for key in ("stdlib", "platstdlib", "purelib", "platlib"):
        p = sysconfig.get_paths().get(key)
        if p:
            dirs.add(os.path.realpath(p))
    for p in sys.path:
        if p and ("site-packages" in p or "dist-packages" in p or p.startswith(sys.base_prefix + "/lib")):
            dirs.add(os.path.realpath(p))
    return tuple(sorted(d.rstrip("/") + "/" for d in dirs))


def isolated(base, lib_dirs, manager, run, keeper=None):
    """Runs run() and puts the process back as a cold run finds it; with a
    keeper (pylint's runs), astroid too (reset_astroid)."""
    import linecache
    import warnings
    modules = set(sys.modules)
    stdin, stdout, stderr = sys.stdin, sys.stdout, sys.stderr
    environ = dict(os.environ)
    filters = list(warnings.filters)
    recursion = sys.getrecursionlimit()
    try:
        return run()
    finally:
        sys.stdin, sys.stdout, sys.stderr = stdin, stdout, stderr
        if dict(os.environ) != environ:
            os.environ.clear()
            os.environ.update(environ)
        warnings.filters[:] = filters
        sys.setrecursionlimit(recursion)
        linecache.clearcache()
        sys.path[:] = base["path"]
        sys.argv[:] = base["argv"]
        for name in set(sys.modules) - modules:
            if not from_libraries(sys.modules.get(name), lib_dirs):
                del sys.modules[name]
        if keeper is not None:
            reset_astroid(manager, base["cache"], keeper)
            manager.extension_package_whitelist.clear()
            manager.extension_package_whitelist.update(base["whitelist"])
            manager._failed_import_hooks[:] = base["hooks"]
            manager.max_inferable_values = base["max_inferable"]


def from_libraries(mod, lib_dirs):
    """Whether a module was imported from the interpreter's own libraries
    (or is built in), not from a project (pylint's load-plugins)."""
    f = getattr(mod, "__file__", None)
    if f:
        return os.path.realpath(f).startswith(lib_dirs)
    paths = list(getattr(mod, "__path__", None) or [])
    return all(os.path.realpath(p).startswith(lib_dirs) for p in paths)


def lint_pylint(base, lib_dirs, manager, keeper, file, args, data):
    """Runs pylint as isolated() does, keeping the library modules astroid
    parsed in earlier runs (see Keeper). When this run met a project
    directory whose names shadow one of the modules kept, it runs again
    without them."""
    kept = keeper.before(manager, file)
    res = isolated(base, lib_dirs, manager, lambda: run_pylint(args, data), keeper)
    if keeper.shadowed(kept):
        keeper.before(manager, file)
        res = isolated(base, lib_dirs, manager, lambda: run_pylint(args, data), keeper)
    return res


class Keeper:
    """Keeps the modules of the interpreter's own libraries that astroid
    parsed, from one run to the next, which makes a run several times
    faster. A kept module must be the one a cold run would find: astroid
    looks a module up by name in its cache before it searches the
    directories of sys.path and of the importing module, so a project file
    or directory of the same name (a re.py next to the file) would be found
    by a cold run instead. The Keeper remembers every project directory
    runs have imported from, and the directories pylint puts on sys.path,
    and drops a kept module whose top-level name is one of their entries,
    or whose file changed."""

    def __init__(self, lib_dirs, pythonpath):
        self.lib_dirs = lib_dirs
        self.dirs = set(os.path.realpath(p) for p in pythonpath)
        self.stamps = {}  # module name -> (file, mtime, size)
        self.seen_before = set()

    @staticmethod
    def names(dirs):
        out = set()
        for d in dirs:
            try:
                entries = os.listdir(d)
            except OSError:
                continue
            for e in entries:
                out.add(e.split(".", 1)[0])
        return out

    def before(self, manager, file):
        """Drops the kept modules a cold run on file would not find, and
        returns the names of those it keeps."""
        self.dirs.add(os.path.dirname(os.path.realpath(file)))
        try:  # the directory pylint puts first on sys.path
            from pylint.lint.expand_modules import get_python_path
            self.dirs.add(get_python_path(file))
        except ImportError:
            d = os.path.dirname(os.path.realpath(file))
            while os.path.exists(os.path.join(d, "__init__.py")) and os.path.dirname(d) != d:
                d = os.path.dirname(d)
            self.dirs.add(d)
        if len(self.dirs) > 512:
            self.dirs = set(list(self.dirs)[-64:])
            self.stamps.clear()
        shadow = self.names(self.dirs)
        cache = manager.astroid_cache
        for name, (f, mtime, size) in list(self.stamps.items()):
            mod = cache.get(name)
            ok = mod is not None and name.split(".", 1)[0] not in shadow and os.path.dirname(f) not in self.dirs
            if ok:
                try:
                    st = os.stat(f)
                    ok = (st.st_mtime_ns, st.st_size) == (mtime, size)
                except OSError:
                    ok = False
            if not ok:
                self.stamps.pop(name, None)
                cache.pop(name, None)
        self.seen_before = set(self.dirs)
        return set(self.stamps)

    def after(self, manager, baseline):
        """Forgets the run's project modules, remembering their directories,
        and starts keeping the library modules it parsed."""
        cache = manager.astroid_cache
        for name in list(cache):
            mod = cache[name]
            if baseline.get(name) is mod:
                continue
            f = getattr(mod, "file", None)
            real = os.path.realpath(f) if f else ""
            if real and real.startswith(self.lib_dirs) and os.path.dirname(real) not in self.dirs:
                if name not in self.stamps:
                    try:
                        st = os.stat(real)
                        self.stamps[name] = (real, st.st_mtime_ns, st.st_size)
                    except OSError:
                        del cache[name]
                continue
            if real:
                self.dirs.add(os.path.dirname(real))
            self.stamps.pop(name, None)
            del cache[name]
        for name, mod in baseline.items():
            cache.setdefault(name, mod)

    def shadowed(self, kept):
        """Whether a directory first met in the last run shadows a module
        that was kept into it."""
        new = self.dirs - self.seen_before
        if not new or not kept:
            return False
        names = self.names(new)
        return any(k.split(".", 1)[0] in names for k in kept)


def reset_astroid(manager, baseline, keeper):
    """Forgets what astroid learnt in a run: the modules it parsed (but the
    ones it had built before the first run, and those the keeper keeps),
    where it found modules, and its inference caches. Unlike astroid's
    clear_cache it does not rebuild the builtins and reload its brain
    plugins, which costs more than a run and leaks memory.

    The caches cleared are astroid 2's (2.14 was compared with cold runs);
    with another astroid, or when one of them is missing, astroid's own
    clear_cache runs instead and nothing is kept."""
    import astroid
    try:
        if not astroid.__version__.startswith("2."):
            raise ImportError("astroid " + astroid.__version__)
        from astroid import context
        from astroid._cache import CACHE_MANAGER
        from astroid.inference_tip import clear_inference_tip_cache
        from astroid.interpreter._import import util as import_util
        from astroid.interpreter.objectmodel import ObjectModel
        from astroid.nodes.node_classes import LookupMixIn
        from astroid.nodes.scoped_nodes import ClassDef
        from astroid import modutils
        lru = (LookupMixIn.lookup, modutils._cache_normalize_path_, import_util.is_namespace,
               ObjectModel.attributes, ClassDef._metaclass_lookup_attribute)
        inference = context._INFERENCE_CACHE
    except (ImportError, AttributeError):
        keeper.stamps.clear()
        manager.clear_cache()
        manager._mod_file_cache.clear()
        return

    keeper.after(manager, baseline)
    manager._mod_file_cache.clear()
    clear_inference_tip_cache()
    inference.clear()
    CACHE_MANAGER.clear_all_caches()
    for fn in lru + tool_caches():
        fn.cache_clear()


_tool_caches = {"modules": -1, "caches": ()}


def tool_caches():
    """The functools caches of pylint's and isort's modules: pylint keeps
    results on astroid nodes (overridden_method,
    unimplemented_abstract_methods), isort its configuration files and
    where a module is placed (first party or not), which a later run must
    not see. Listed again when modules were imported."""
    if _tool_caches["modules"] == len(sys.modules):
        return _tool_caches["caches"]
    caches = []
    for name, mod in list(sys.modules.items()):
        if not (name.split(".", 1)[0] in ("pylint", "isort") and mod is not None):
            continue
        for obj in list(vars(mod).values()):
            if getattr(obj, "__module__", None) != name:
                continue
            if hasattr(obj, "cache_clear"):
                caches.append(obj)
            elif isinstance(obj, type):
                caches.extend(v for v in vars(obj).values() if hasattr(v, "cache_clear"))
    _tool_caches.update(modules=len(sys.modules), caches=tuple(caches))
    return _tool_caches["caches"]


def redirect(data):
    """Gives the tool data on stdin and captures what it prints."""
    sys.stdin = io.TextIOWrapper(io.BytesIO(data), encoding="utf-8")
    out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", newline="\n", write_through=True)
    err = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="backslashreplace", newline="\n", write_through=True)
    sys.stdout, sys.stderr = out, err
    return out, err


def captured(stream):
    stream.flush()
    return stream.buffer.getvalue().decode("utf-8", "replace")


def exit_status(code):
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)
    return 1


def run_pylint(args, data):
    from pylint.lint import Run
    out, err = redirect(data)
    try:
        run = Run(list(args), exit=False)
        linter = run.linter
        if linter.config.exit_zero:
            status = 0
        elif linter.any_fail_on_issues():
            status = linter.msg_status or 1
        else:
            status = linter.msg_status
    except SystemExit as exc:
        status = exit_status(exc.code)
    except BaseException:  # noqa: BLE001 - a crash, as the CLI would print it
        traceback.print_exc()
        status = 1
    return {"stdout": captured(out), "stderr": captured(err), "status": status}


def run_flake8(flake8_app, flake8_utils, args, data):
    flake8_utils.stdin_get_value.cache_clear()
    out, err = redirect(data)
    try:
        app = flake8_app.Application()
        app.run(list(args))
        status = app.exit_code()
    except SystemExit as exc:
        status = exit_status(exc.code)
    except BaseException:  # noqa: BLE001
        traceback.print_exc()
        status = 1
    finally:
        flake8_utils.stdin_get_value.cache_clear()
    return {"stdout": captured(out), "stderr": captured(err), "status": status}


def rss_kib():
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
