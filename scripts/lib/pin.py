# gdb's `pin` command for sessions on pintrace's gdb stub (scripts/gdb_record,
# scripts/gdb_replay): `pin record on`, `pin record off`, `pin icount`, and any other
# `pin X` sent as `monitor X` (the stub's `monitor help` lists them). Without Python in
# gdb the `monitor` forms do the same.
import gdb


class Pin(gdb.Command):
    """pintrace's commands: pin record on|off, pin icount, pin status, pin help.
Any other `pin X` is sent to the stub as `monitor X`."""

    def __init__(self):
        super().__init__("pin", gdb.COMMAND_USER, prefix=True)

    def invoke(self, arg, from_tty):
        gdb.execute("monitor " + (arg or "help"), from_tty)


class PinRecord(gdb.Command):
    """pin record on: start recording a region (a pinball) at this instruction.
pin record off: end the region being recorded here."""

    def __init__(self):
        super().__init__("pin record", gdb.COMMAND_USER)

    def invoke(self, arg, from_tty):
        if arg.strip() not in ("on", "off"):
            raise gdb.GdbError("usage: pin record on|off")
        gdb.execute("monitor record " + arg.strip(), from_tty)


class PinIcount(gdb.Command):
    """pin icount: the selected thread's instruction count (in a replay: where it is)."""

    def __init__(self):
        super().__init__("pin icount", gdb.COMMAND_USER)

    def invoke(self, arg, from_tty):
        gdb.execute("monitor icount", from_tty)


Pin()
PinRecord()
PinIcount()
