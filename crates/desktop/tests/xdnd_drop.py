"""Drops files on an X window as a file manager does, by the XDND protocol (version 5).

Usage: xdnd_drop.py WINDOW_ID PATH...

xdotool moves the pointer and clicks but cannot drag a file from another program, so the window
tests use this: it is the drag source. It owns the XdndSelection, enters the target window with
the type text/uri-list, moves over its middle, serves the URI list when the target asks for it,
drops once the target has accepted, and waits for XdndFinished. Exits 0 when the target
finished the drop accepting it, 1 when it rejected it, 2 when it did not answer in time.
Needs python3-xlib.
"""

import sys
import time
import urllib.parse

from Xlib import X, display
from Xlib.protocol import event

TIMEOUT = 10.0


def main():
    target_id, paths = int(sys.argv[1]), sys.argv[2:]
    d = display.Display()
    atom = lambda name: d.intern_atom(name)
    uri_list = atom("text/uri-list")
    selection = atom("XdndSelection")
    copy = atom("XdndActionCopy")
    uris = "".join("file://" + urllib.parse.quote(p) + "\r\n" for p in paths).encode()

    source = d.screen().root.create_window(0, 0, 1, 1, 0, X.CopyFromParent)
    source.set_selection_owner(selection, X.CurrentTime)
    target = d.create_resource_object("window", target_id)
    geometry = target.get_geometry()
    origin = target.translate_coords(d.screen().root, 0, 0)
    x = -origin.x + geometry.width // 2
    y = -origin.y + geometry.height // 2

    def send(name, data):
        message = event.ClientMessage(
            window=target, client_type=atom(name), data=(32, data + [0] * (5 - len(data)))
        )
        target.send_event(message)
        d.flush()

    def serve(request):
        """Writes the URI list where the target asked for it, and tells it so."""
        prop = request.property if request.target == uri_list else X.NONE
        if prop != X.NONE:
            request.requestor.change_property(prop, uri_list, 8, uris)
        d.send_event(
            request.requestor,
            event.SelectionNotify(
                time=request.time,
                requestor=request.requestor,
                selection=request.selection,
                target=request.target,
                property=prop,
            ),
        )
        d.flush()

    def wait_for(name):
        """Serves selection requests until the target sends the client message `name`."""
        wanted = atom(name)
        deadline = time.monotonic() + TIMEOUT
        while time.monotonic() < deadline:
            if not d.pending_events():
                time.sleep(0.01)
                continue
            e = d.next_event()
            if e.type == X.SelectionRequest:
                serve(e)
            elif e.type == X.ClientMessage and e.client_type == wanted:
                return e.data[1]
        print(f"xdnd_drop: no {name} from window {target_id:#x}", file=sys.stderr)
        sys.exit(2)

    send("XdndEnter", [source.id, 5 << 24, uri_list])
    send("XdndPosition", [source.id, 0, (x << 16) | y, X.CurrentTime, copy])
    if not wait_for("XdndStatus")[1] & 1:
        print("xdnd_drop: the window rejected the files", file=sys.stderr)
        sys.exit(1)
    # The pointer moves on, as in a real drag; the list is served meanwhile.
    send("XdndPosition", [source.id, 0, (x << 16) | y, X.CurrentTime, copy])
    wait_for("XdndStatus")
    send("XdndDrop", [source.id, 0, X.CurrentTime])
    accepted = wait_for("XdndFinished")[1] & 1
    sys.exit(0 if accepted else 1)


main()
