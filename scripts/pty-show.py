"""Runs a command on a pseudo-terminal, as a terminal emulator would, and answers the primary
device attributes query (ESC [ c) with REPLY, or not at all when REPLY is "none".

usage: pty-show.py REPLY OUTPUT-FILE COMMAND... ; exits with the command's status and writes
everything it printed to OUTPUT-FILE. The terminal is 80x24 cells of 10x20 pixels.
"""
import fcntl, os, pty, struct, sys, termios

reply, output_path, command = sys.argv[1], sys.argv[2], sys.argv[3:]
pid, master = pty.fork()
if pid == 0:
    fcntl.ioctl(sys.stdout.fileno(), termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 800, 480))
    os.execvp(command[0], command)
received = b""
answered = False
while True:
    try:
        chunk = os.read(master, 65536)
    except OSError:
        break
    if not chunk:
        break
    received += chunk
    if not answered and b"\x1b[c" in received:
        answered = True
        if reply != "none":
            os.write(master, reply.encode().decode("unicode_escape").encode("latin-1"))
_, status = os.waitpid(pid, 0)
with open(output_path, "wb") as out:
    out.write(received)
sys.exit(os.waitstatus_to_exitcode(status))
