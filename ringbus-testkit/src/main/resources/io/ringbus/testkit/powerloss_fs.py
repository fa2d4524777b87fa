#!/usr/bin/python3
"""A FUSE file system for power-loss tests: a pass-through to a backing directory that keeps a
model of what a disk would hold after power loss, and can be told to "cut" the power.

Usage: powerloss_fs.py --mode posix|file|any|immediate --state STATE_DIR BACKING MOUNTPOINT

The live view (what processes read through the mount) is the backing directory itself. The model
records what is durable:
- data: per inode, the durable size and an undo log. Before a write or a truncate changes a byte
  that is durable and not yet saved, that byte is copied to the inode's undo file (once per sync
  epoch); fsync/fdatasync drops the undo log and makes the current size durable. So an append and
  its fsync copy nothing, and an fsync costs O(its dirty ranges), never O(file size).
- names: per directory inode, its durable entries (name -> inode). In mode posix a directory's
  entries become durable when it is fsynced (fsyncdir); in mode file a file's fsync also makes its
  current name and the chain of directories above it durable; in mode any every fsync makes the
  whole current namespace durable; in mode immediate every name is durable at once.
- a removed inode that a durable name still holds is moved to STATE_DIR/grave, not deleted.

cut [SEED] rebuilds the backing directory from the durable model: the tree of durable names, each
file with its undo log applied and cut to its durable size. With a seed (torn), each file keeps a
random prefix (0..all) of its unsynced 4 KiB pages. Handles open at the cut fail with EIO after it.

Control: a Unix socket STATE_DIR/control.sock, one command per connection, one reply line:
"ping" -> "ok"; "counters" -> "ok key=value ..."; "cut" or "cut SEED" -> "ok key=value ...".
STATE_DIR must be on the same file system as BACKING (files are renamed between them).
"""
import argparse
import errno
import os
import random
import shutil
import socket
import stat
import subprocess
import sys
import threading
import traceback

try:
    import fusepy as fuse  # Debian's python3-fusepy names the module fusepy
except ImportError:  # pragma: no cover - pip's fusepy names it fuse
    import fuse

PAGE = 4096
MODES = ('posix', 'file', 'any', 'immediate')


def add_range(ranges, start, end):
    """Adds [start, end) to a sorted list of disjoint [s, e] pairs, merging what touches."""
    if end <= start:
        return
    if not ranges or ranges[-1][1] < start:
        ranges.append([start, end])
        return
    if ranges[-1][0] <= start:
        ranges[-1][1] = max(ranges[-1][1], end)
        return
    out = []
    for s, e in ranges:
        if e < start or s > end:
            out.append([s, e])
        else:
            start, end = min(s, start), max(e, end)
    out.append([start, end])
    out.sort()
    ranges[:] = out


def missing(ranges, start, end):
    """The pieces of [start, end) that ranges do not cover."""
    pieces = []
    at = start
    for s, e in ranges:
        if e <= at:
            continue
        if s >= end:
            break
        if s > at:
            pieces.append((at, s))
        at = max(at, e)
        if at >= end:
            break
    if at < end:
        pieces.append((at, end))
    return pieces


def covered(ranges, start, end):
    """The pieces of [start, end) that ranges cover."""
    return [(max(s, start), min(e, end)) for s, e in ranges if e > start and s < end]


class FileState:
    """What one inode changed since its last fsync."""
    __slots__ = ('durable_size', 'low', 'written', 'saved', 'undo_fd')

    def __init__(self, durable_size):
        self.durable_size = durable_size
        self.low = durable_size      # the smallest size since the last fsync
        self.written = []            # ranges written since the last fsync
        self.saved = []              # durable ranges copied to the undo file
        self.undo_fd = None

    def dirty(self, size):
        """The ranges that differ from the durable content: writes below low, all of [low, size)."""
        ranges = [list(r) for r in covered(self.written, 0, min(self.low, size))]
        add_range(ranges, self.low, size)
        return ranges

    def close(self):
        if self.undo_fd is not None:
            os.close(self.undo_fd)
            self.undo_fd = None


class Handle:
    __slots__ = ('fd', 'ino', 'epoch')

    def __init__(self, fd, ino, epoch):
        self.fd, self.ino, self.epoch = fd, ino, epoch


class PowerLossFs(fuse.Operations):
    def __init__(self, backing, state, mode):
        self.backing = os.path.realpath(backing)
        self.state = os.path.realpath(state)
        self.mode = mode
        self.grave_dir = os.path.join(self.state, 'grave')
        self.undo_dir = os.path.join(self.state, 'undo')
        self.mutex = threading.RLock()
        self.epoch = 0
        self.handles = {}
        self.next_fh = 1
        self.undo_seq = 0
        self.counters = dict.fromkeys((
            'file_fsyncs', 'dir_fsyncs', 'creates', 'mkdirs', 'renames', 'unlinks', 'rmdirs', 'links',
            'truncates', 'writes', 'bytes_written', 'bytes_made_durable', 'bytes_copied', 'cuts',
            'last_cut_bytes_dropped', 'last_cut_bytes_torn_kept', 'last_cut_files_dropped'), 0)
        if os.stat(self.state).st_dev != os.stat(self.backing).st_dev:
            raise SystemExit('state dir %s is not on the file system of %s' % (self.state, self.backing))
        self.reset_model()

    # ---- model ---------------------------------------------------------------------------------

    def reset_model(self):
        """Everything in the backing directory is durable (at mount and after a cut)."""
        for d in (self.grave_dir, self.undo_dir):
            shutil.rmtree(d, ignore_errors=True)
            os.mkdir(d)
        for st in getattr(self, 'files', {}).values():
            st.close()
        self.files = {}      # inode -> FileState (only inodes changed since their last fsync)
        self.durable = {}    # directory inode -> {name: inode}
        self.grave = {}      # inode -> path in grave_dir
        self.root = os.lstat(self.backing).st_ino
        for dirpath, dirnames, filenames in os.walk(self.backing):
            entries = {}
            for name in dirnames + filenames:
                entries[name] = os.lstat(os.path.join(dirpath, name)).st_ino
            self.durable[os.lstat(dirpath).st_ino] = entries
        self.recount()

    def recount(self):
        self.refs = {}
        for entries in self.durable.values():
            for ino in entries.values():
                self.refs[ino] = self.refs.get(ino, 0) + 1

    def full(self, path):
        return self.backing + path if path != '/' else self.backing

    def state_of(self, ino, fd):
        st = self.files.get(ino)
        if st is None:
            st = FileState(os.fstat(fd).st_size)
            self.files[ino] = st
        return st

    def save(self, st, fd, start, end):
        """Copies the durable bytes of [start, end) not saved yet to the undo file."""
        for s, e in missing(st.saved, start, min(end, st.durable_size)):
            if st.undo_fd is None:
                self.undo_seq += 1
                st.undo_fd = os.open(os.path.join(self.undo_dir, str(self.undo_seq)),
                                     os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o600)
            at = s
            while at < e:
                chunk = os.pread(fd, min(e - at, 1 << 20), at)
                if not chunk:
                    break
                os.pwrite(st.undo_fd, chunk, at)
                at += len(chunk)
            self.counters['bytes_copied'] += e - s
            add_range(st.saved, s, e)

    def truncated(self, ino, fd, length):
        st = self.state_of(ino, fd)
        size = os.fstat(fd).st_size
        if length < size:
            self.save(st, fd, length, size)
        st.low = min(st.low, length)
        self.counters['truncates'] += 1

    def sync_data(self, ino, fd):
        st = self.files.pop(ino, None)
        if st is not None:
            size = os.fstat(fd).st_size
            self.counters['bytes_made_durable'] += sum(e - s for s, e in st.dirty(size))
            st.close()

    def sync_dir(self, path):
        """Makes the directory's current entries durable."""
        full = self.full(path)
        ino = os.lstat(full).st_ino
        entries = {}
        for name in os.listdir(full):
            child = os.lstat(os.path.join(full, name))
            entries[name] = child.st_ino
            if stat.S_ISDIR(child.st_mode):
                self.durable.setdefault(child.st_ino, {})
        self.durable[ino] = entries
        self.gc()

    def sync_chain(self, path):
        """Mode file: the file's current name and every directory above it become durable."""
        at, parent = self.backing, self.root
        ino = None
        for name in [p for p in path.split('/') if p]:
            at = os.path.join(at, name)
            child = os.lstat(at)
            ino = child.st_ino
            self.durable.setdefault(parent, {})[name] = ino
            if stat.S_ISDIR(child.st_mode):
                self.durable.setdefault(ino, {})
            parent = ino
        # A durable name of the file that is no longer its live name goes (the rename is durable too).
        if ino is not None:
            live_dirs = None
            for dir_ino, entries in self.durable.items():
                for name in [n for n, i in entries.items() if i == ino]:
                    if live_dirs is None:
                        live_dirs = self.live_dirs()
                    d = live_dirs.get(dir_ino)
                    try:
                        if d is not None and os.lstat(os.path.join(d, name)).st_ino == ino:
                            continue
                    except FileNotFoundError:
                        pass
                    del entries[name]
        self.gc()

    def sync_all(self):
        """Modes any and immediate: the whole current namespace becomes durable."""
        for dirpath, dirnames, filenames in os.walk(self.backing):
            entries = {}
            for name in dirnames + filenames:
                entries[name] = os.lstat(os.path.join(dirpath, name)).st_ino
            self.durable[os.lstat(dirpath).st_ino] = entries
        self.gc()

    def live_dirs(self):
        dirs = {}
        for dirpath, _, _ in os.walk(self.backing):
            dirs[os.lstat(dirpath).st_ino] = dirpath
        return dirs

    def gc(self):
        """Deletes buried inodes no durable entry can reach any more."""
        roots = [ino for ino in self.durable if ino not in self.grave]
        reach = set()
        while roots:
            ino = roots.pop()
            if ino in reach:
                continue
            reach.add(ino)
            roots.extend(self.durable.get(ino, {}).values())
        for ino in [i for i in self.grave if i not in reach]:
            path = self.grave.pop(ino)
            self.durable.pop(ino, None)
            st = self.files.pop(ino, None)
            if st is not None:
                st.close()
            if os.path.isdir(path) and not os.path.islink(path):
                shutil.rmtree(path, ignore_errors=True)
            else:
                os.unlink(path)
        self.recount()

    def bury(self, full, st):
        """Moves an inode a durable name still holds out of the live tree."""
        target = os.path.join(self.grave_dir, str(st.st_ino))
        os.rename(full, target)
        self.grave[st.st_ino] = target

    def remove(self, full):
        """Unlinks a non-directory; keeps it buried when a durable name needs its data."""
        st = os.lstat(full)
        if st.st_nlink == 1 and self.refs.get(st.st_ino, 0) > 0:
            self.bury(full, st)
        else:
            os.unlink(full)
            if st.st_nlink == 1:
                gone = self.files.pop(st.st_ino, None)
                if gone is not None:
                    gone.close()

    def remove_dir(self, full):
        st = os.lstat(full)
        if os.listdir(full):
            raise OSError(errno.ENOTEMPTY, 'directory not empty', full)
        if self.refs.get(st.st_ino, 0) > 0:
            self.bury(full, st)
        else:
            os.rmdir(full)
            self.durable.pop(st.st_ino, None)
            self.gc()

    def changed(self, *paths):
        if self.mode == 'immediate':
            for path in paths:
                self.sync_dir(path)

    def handle(self, fh):
        h = self.handles.get(fh)
        if h is None or h.epoch != self.epoch:
            raise OSError(errno.EIO, 'handle opened before the last cut')
        return h

    def new_handle(self, fd):
        ino = os.fstat(fd).st_ino
        fh = self.next_fh
        self.next_fh += 1
        self.handles[fh] = Handle(fd, ino, self.epoch)
        return fh

    # ---- cut -----------------------------------------------------------------------------------

    def cut(self, seed=None):
        rng = random.Random(seed) if seed is not None else None
        live = {}
        for dirpath, dirnames, filenames in os.walk(self.backing):
            for name in filenames + [d for d in dirnames if os.path.islink(os.path.join(dirpath, d))]:
                p = os.path.join(dirpath, name)
                live.setdefault(os.lstat(p).st_ino, p)
        sources = dict(live)
        sources.update(self.grave)
        rebuild = os.path.join(self.state, 'rebuild')
        shutil.rmtree(rebuild, ignore_errors=True)
        os.mkdir(rebuild)
        placed, dropped, kept_torn = {}, 0, 0
        visited = set()

        def build(dir_ino, target_dir):
            nonlocal dropped, kept_torn
            visited.add(dir_ino)
            for name in sorted(self.durable.get(dir_ino, {})):
                ino = self.durable[dir_ino][name]
                target = os.path.join(target_dir, name)
                if ino in self.durable:
                    if ino not in visited:
                        os.mkdir(target)
                        build(ino, target)
                elif ino in placed:
                    os.link(placed[ino], target)
                elif ino in sources:
                    os.rename(sources[ino], target)
                    placed[ino] = target
                    st = self.files.get(ino)
                    if st is not None and os.path.isfile(target) and not os.path.islink(target):
                        d, k = self.restore(st, target, rng)
                        dropped += d
                        kept_torn += k
                else:
                    sys.stderr.write('powerloss_fs: no data for durable %s (inode %d)\n' % (target, ino))
                    open(target, 'wb').close()

        build(self.root, rebuild)
        files_dropped = 0
        for ino, p in live.items():
            if ino not in placed:
                files_dropped += 1
                st = self.files.get(ino)
                dropped += sum(e - s for s, e in st.dirty(os.lstat(p).st_size)) if st else 0
        for name in os.listdir(self.backing):
            p = os.path.join(self.backing, name)
            if os.path.isdir(p) and not os.path.islink(p):
                shutil.rmtree(p)
            else:
                os.unlink(p)
        for name in os.listdir(rebuild):
            os.rename(os.path.join(rebuild, name), os.path.join(self.backing, name))
        os.rmdir(rebuild)
        self.epoch += 1
        self.reset_model()
        self.counters['cuts'] += 1
        self.counters['last_cut_bytes_dropped'] = dropped
        self.counters['last_cut_bytes_torn_kept'] = kept_torn
        self.counters['last_cut_files_dropped'] = files_dropped

    def restore(self, st, path, rng):
        """Puts the durable content back into path (plus a torn prefix of unsynced pages)."""
        size = os.lstat(path).st_size
        dirty = st.dirty(size)
        dirty_bytes = sum(e - s for s, e in dirty)
        kept = []
        if rng is not None and dirty:
            pages = []
            for s, e in dirty:
                pages.extend(range(s // PAGE, (e - 1) // PAGE + 1))
            pages = sorted(set(pages))
            for p in pages[:rng.randint(0, len(pages))]:
                add_range(kept, p * PAGE, min((p + 1) * PAGE, size))
        new_size = st.durable_size
        if kept:
            new_size = max(new_size, kept[-1][1])
        fd = os.open(path, os.O_RDWR)
        try:
            os.ftruncate(fd, new_size)
            for s, e in st.saved:
                for a, b in missing(kept, s, e):
                    os.pwrite(fd, os.pread(st.undo_fd, b - a, a), a)
                    self.counters['bytes_copied'] += b - a
        finally:
            os.close(fd)
        kept_dirty = sum(b - a for s, e in dirty for a, b in covered(kept, s, e))
        return dirty_bytes - kept_dirty, kept_dirty

    # ---- FUSE operations -----------------------------------------------------------------------

    def __call__(self, op, *args):
        with self.mutex:
            try:
                return super().__call__(op, *args)
            except OSError:
                raise
            except Exception:
                traceback.print_exc()
                raise OSError(errno.EIO, 'powerloss_fs failed in ' + op)

    def getattr(self, path, fh=None):
        if fh is not None and path is None:
            st = os.fstat(self.handle(fh).fd)
        else:
            st = os.lstat(self.full(path))
        return {k: getattr(st, k) for k in ('st_atime', 'st_ctime', 'st_gid', 'st_mode', 'st_mtime',
                                              'st_nlink', 'st_size', 'st_uid', 'st_blocks', 'st_rdev')}

    def access(self, path, amode):
        if not os.access(self.full(path), amode):
            raise OSError(errno.EACCES, 'access denied', path)

    def readdir(self, path, fh):
        return ['.', '..'] + os.listdir(self.full(path))

    def readlink(self, path):
        return os.readlink(self.full(path))

    def statfs(self, path):
        sv = os.statvfs(self.full(path))
        return {k: getattr(sv, k) for k in ('f_bavail', 'f_bfree', 'f_blocks', 'f_bsize', 'f_favail',
                                              'f_ffree', 'f_files', 'f_flag', 'f_frsize', 'f_namemax')}

    def chmod(self, path, mode):
        os.chmod(self.full(path), mode)

    def chown(self, path, uid, gid):
        os.lchown(self.full(path), uid, gid)

    def utimens(self, path, times=None):
        os.utime(self.full(path), times, follow_symlinks=False)

    def mknod(self, path, mode, dev):
        os.mknod(self.full(path), mode, dev)
        self.files[os.lstat(self.full(path)).st_ino] = FileState(0)
        self.counters['creates'] += 1
        self.changed(os.path.dirname(path))

    def mkdir(self, path, mode):
        os.mkdir(self.full(path), mode)
        self.counters['mkdirs'] += 1
        self.changed(os.path.dirname(path))

    def rmdir(self, path):
        self.remove_dir(self.full(path))
        self.counters['rmdirs'] += 1
        self.changed(os.path.dirname(path))

    def unlink(self, path):
        self.remove(self.full(path))
        self.counters['unlinks'] += 1
        self.changed(os.path.dirname(path))

    def symlink(self, target, source):
        os.symlink(source, self.full(target))
        self.counters['creates'] += 1
        self.changed(os.path.dirname(target))

    def link(self, target, source):
        os.link(self.full(source), self.full(target))
        self.counters['links'] += 1
        self.changed(os.path.dirname(target))

    def rename(self, old, new):
        src, dst = self.full(old), self.full(new)
        s = os.lstat(src)
        try:
            d = os.lstat(dst)
        except FileNotFoundError:
            d = None
        if d is not None and d.st_ino != s.st_ino:
            if stat.S_ISDIR(d.st_mode):
                if not stat.S_ISDIR(s.st_mode):
                    raise OSError(errno.EISDIR, 'is a directory', new)
                self.remove_dir(dst)
            else:
                if stat.S_ISDIR(s.st_mode):
                    raise OSError(errno.ENOTDIR, 'not a directory', new)
                self.remove(dst)
        os.rename(src, dst)
        self.counters['renames'] += 1
        self.changed(os.path.dirname(old), os.path.dirname(new))

    def truncate(self, path, length, fh=None):
        if fh is not None:
            fd = self.handle(fh).fd
            self.truncated(os.fstat(fd).st_ino, fd, length)
            os.ftruncate(fd, length)
            return
        fd = os.open(self.full(path), os.O_RDWR)
        try:
            self.truncated(os.fstat(fd).st_ino, fd, length)
            os.ftruncate(fd, length)
        finally:
            os.close(fd)

    def open(self, path, flags):
        access = flags & os.O_ACCMODE
        fd = os.open(self.full(path), access if access != os.O_WRONLY else os.O_RDWR)
        if flags & os.O_TRUNC and access != os.O_RDONLY:
            self.truncated(os.fstat(fd).st_ino, fd, 0)
            os.ftruncate(fd, 0)
        return self.new_handle(fd)

    def create(self, path, mode, fi=None):
        full = self.full(path)
        existed = os.path.lexists(full)
        fd = os.open(full, os.O_RDWR | os.O_CREAT, mode)
        fh = self.new_handle(fd)
        if not existed:
            self.files[self.handles[fh].ino] = FileState(0)
            self.counters['creates'] += 1
            self.changed(os.path.dirname(path))
        return fh

    def read(self, path, size, offset, fh):
        return os.pread(self.handle(fh).fd, size, offset)

    def write(self, path, data, offset, fh):
        h = self.handle(fh)
        st = self.state_of(h.ino, h.fd)
        end = offset + len(data)
        self.save(st, h.fd, offset, end)
        n = os.pwrite(h.fd, data, offset)
        add_range(st.written, offset, offset + n)
        self.counters['writes'] += 1
        self.counters['bytes_written'] += n
        return n

    def flush(self, path, fh):
        pass  # close(2) of a handle from before a cut succeeds: only its reads, writes and fsyncs fail

    def release(self, path, fh):
        h = self.handles.pop(fh, None)
        if h is not None:
            os.close(h.fd)

    def fsync(self, path, datasync, fh):
        h = self.handle(fh)
        self.counters['file_fsyncs'] += 1
        self.sync_data(h.ino, h.fd)
        if self.mode == 'file' and path is not None:
            self.sync_chain(path)
        elif self.mode in ('any', 'immediate'):
            self.sync_all()

    def fsyncdir(self, path, datasync, fh):
        self.counters['dir_fsyncs'] += 1
        if self.mode in ('any', 'immediate'):
            self.sync_all()
        else:
            self.sync_dir(path)

    # ---- control -------------------------------------------------------------------------------

    def command(self, line):
        words = line.split()
        if not words:
            return 'error empty command'
        with self.mutex:
            if words[0] == 'ping':
                return 'ok'
            if words[0] == 'counters':
                return 'ok ' + self.counter_line()
            if words[0] == 'cut' and len(words) <= 2:
                self.cut(int(words[1]) if len(words) == 2 else None)
                return 'ok ' + self.counter_line()
        return 'error unknown command: ' + line

    def counter_line(self):
        return ' '.join('%s=%d' % kv for kv in sorted(self.counters.items()))


def serve(fs, path):
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(path)
    server.listen(8)

    def loop():
        while True:
            conn, _ = server.accept()
            with conn:
                data = b''
                while not data.endswith(b'\n'):
                    chunk = conn.recv(4096)
                    if not chunk:
                        break
                    data += chunk
                try:
                    reply = fs.command(data.decode('utf-8').strip())
                except Exception as e:  # the reply says what failed; the file system keeps serving
                    traceback.print_exc()
                    reply = 'error %s: %s' % (type(e).__name__, e)
                conn.sendall((reply.replace('\n', ' ') + '\n').encode('utf-8'))

    threading.Thread(target=loop, name='control', daemon=True).start()


def orphan_watch(mountpoint, state):
    """Unmounts when the process that started it dies, even by SIGKILL: no mount outlives its test JVM."""
    parent = os.getppid()

    def loop():
        while os.getppid() == parent:
            threading.Event().wait(0.5)
        subprocess.run(['fusermount3', '-u', '-z', mountpoint], stderr=subprocess.DEVNULL, check=False)
        shutil.rmtree(state, ignore_errors=True)  # nobody is left to delete it
        os._exit(0)

    threading.Thread(target=loop, name='orphan-watch', daemon=True).start()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--mode', choices=MODES, default='posix')
    parser.add_argument('--state', required=True)
    parser.add_argument('backing')
    parser.add_argument('mountpoint')
    args = parser.parse_args()
    fs = PowerLossFs(args.backing, args.state, args.mode)
    serve(fs, os.path.join(fs.state, 'control.sock'))
    orphan_watch(os.path.realpath(args.mountpoint), fs.state)
    # attr/entry timeouts 0: after a cut the kernel must ask again; hard_remove: no .fuse_hidden files.
    try:
        fuse.FUSE(fs, args.mountpoint, foreground=True, nothreads=True, fsname='powerloss', big_writes=True,
                  hard_remove=True, entry_timeout=0, attr_timeout=0, negative_timeout=0)
    finally:
        for name in ('control.sock', 'grave', 'undo', 'rebuild'):
            p = os.path.join(fs.state, name)
            shutil.rmtree(p, ignore_errors=True) if os.path.isdir(p) else os.path.exists(p) and os.unlink(p)


if __name__ == '__main__':
    main()
