//! The built-in LuaSocket `socket` module: scripts running on Quadfall talk to TCP servers on
//! 127.0.0.1 (the test's own, or the script's).

use lua::Scripts;
use nes::Console;
use std::cell::RefCell;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::rc::Rc;
use std::thread;
use std::time::{Duration, Instant};

const ROM: &[u8] = include_bytes!("../../../roms/quadfall.nes");
/// The client script sends a byte a frame after this frame (Quadfall's demo is under way)...
const START: usize = 1000;
/// ... this many.
const SENT: usize = 200;
/// The playfield's bottom row ($0400 + 19 * 10), whose cells the client script sends in turn.
const BOTTOM_ROW: u16 = 0x04BE;

struct Session {
    console: Console,
    scripts: Scripts,
    output: Rc<RefCell<String>>,
}

impl Session {
    fn new() -> Session {
        let (sink, output) = lua::captured_output();
        let scripts = Scripts::with_output(ROM.to_vec(), "quadfall.nes", sink);
        Session {
            console: Console::from_ines(ROM).expect("roms/quadfall.nes loads"),
            scripts,
            output,
        }
    }

    /// Loads `source` from a file named after the test.
    fn load(&mut self, name: &str, source: &str) {
        let path: PathBuf =
            std::env::temp_dir().join(format!("nestor-socket-{}-{name}.lua", std::process::id()));
        std::fs::write(&path, source).expect("write the script");
        let loaded = self.scripts.load(&mut self.console, &path);
        let _ = std::fs::remove_file(&path);
        loaded.expect("script loads");
    }

    fn output(&self) -> String {
        self.output.borrow().clone()
    }

    /// Runs frames until the output contains `text` (10 s at most).
    fn run_until(&mut self, text: &str) {
        let start = Instant::now();
        while !self.output().contains(text) {
            assert!(
                start.elapsed() < Duration::from_secs(10),
                "no {text:?} after 10 s; output:\n{}",
                self.output()
            );
            self.scripts.run_frame(&mut self.console);
        }
    }
}

/// The client script's bytes: bottom-row cell `k % 10` at the end of frame `START + 1 + k`,
/// read from a console that runs without scripts.
fn playfield_bytes() -> Vec<u8> {
    let mut console = Console::from_ines(ROM).expect("roms/quadfall.nes loads");
    for _ in 0..START {
        console.run_frame();
    }
    (0..SENT)
        .map(|k| {
            console.run_frame();
            console.inspect(BOTTOM_ROW + (k % 10) as u16)
        })
        .collect()
}

#[test]
fn client_script_sends_a_byte_a_frame_and_reads_replies_without_blocking() {
    let listener = TcpListener::bind("127.0.0.1:0").expect("listen on 127.0.0.1");
    let port = listener.local_addr().expect("port").port();
    // Replies "ack <k> <byte>" to each byte; every tenth reply comes in two parts 30 ms apart,
    // so that the script sees partial lines. Returns what it received until the script closed.
    let server = thread::spawn(move || {
        let (mut stream, _) = listener.accept().expect("the script connects");
        let mut received = Vec::new();
        let mut byte = [0];
        while stream.read(&mut byte).expect("read") == 1 {
            let k = received.len();
            received.push(byte[0]);
            let reply = format!("ack {k} {}\r\n", byte[0]);
            if k % 10 == 0 {
                let (head, tail) = reply.split_at(4);
                stream.write_all(head.as_bytes()).expect("write");
                thread::sleep(Duration::from_millis(30));
                stream.write_all(tail.as_bytes()).expect("write");
            } else {
                stream.write_all(reply.as_bytes()).expect("write");
            }
        }
        received
    });

    let script = r#"
        local socket = require("socket")
        local tcp = assert(socket.tcp())
        print("nodelay", tcp:setoption("tcp-nodelay", true))
        print("connect", tcp:connect("127.0.0.1", PORT))
        print("nodelay on", tcp:getoption("tcp-nodelay"))
        print("settimeout", tcp:settimeout(0))
        local sent, replies, partials, pending, slowest = 0, {}, 0, "", 0
        emu.registerafter(function()
            if emu.framecount() > START and sent < SENT then
                local cell = memory.readbyte(BOTTOM_ROW + sent % 10)
                local last, err = tcp:send(string.char(cell))
                assert(last == 1 and err == nil, err)
                sent = sent + 1
            end
            while #replies < SENT do
                local start = socket.gettime()
                local line, err, partial = tcp:receive("*l", pending)
                slowest = math.max(slowest, socket.gettime() - start)
                if not line then
                    assert(err == "timeout", err)
                    if partial ~= pending then partials = partials + 1 end
                    pending = partial
                    break
                end
                replies[#replies + 1] = line
                pending = ""
            end
            if #replies == SENT and sent == SENT then
                print(table.concat(replies, "|"))
                print("partial lines seen", partials > 0)
                print("receive never waited", slowest < 0.05)
                print("close", tcp:close())
                print("send after close", tcp:send("x"))
                print("receive after close", tcp:receive())
                sent = sent + 1
                print("done")
            end
        end)
    "#
    .replace("PORT", &port.to_string())
    .replace("START", &START.to_string())
    .replace("SENT", &SENT.to_string())
    .replace("BOTTOM_ROW", &BOTTOM_ROW.to_string());

    let mut s = Session::new();
    s.load("client", &script);
    s.run_until("done\n");
    let expected_bytes = playfield_bytes();
    assert!(
        expected_bytes.contains(&0xEF) && expected_bytes.iter().any(|&b| b != 0xEF),
        "the demo fills some of the bottom row meanwhile: {expected_bytes:?}"
    );
    assert_eq!(
        server.join().expect("server thread"),
        expected_bytes,
        "the server got the playfield bytes"
    );
    let replies: Vec<String> = expected_bytes
        .iter()
        .enumerate()
        .map(|(k, b)| format!("ack {k} {b}"))
        .collect();
    assert_eq!(
        s.output(),
        format!(
            "nodelay 1\nconnect 1\nnodelay on true\nsettimeout 1\n{}\npartial lines seen true\n\
             receive never waited true\nclose 1\nsend after close nil closed 0\n\
             receive after close nil closed \ndone\n",
            replies.join("|")
        )
    );
}

#[test]
fn script_server_accepts_a_connection_found_by_select() {
    let script = r#"
        local socket = require("socket.core")
        print("same module", socket == require("socket"), rawget(_G, "socket"))
        local server = assert(socket.bind("127.0.0.1", 0))
        print("server", type(server))
        local ip, port, family = server:getsockname()
        print("listening", ip, family)
        print("PORT " .. port)
        print("settimeout", server:settimeout(0))
        print("accept", server:accept())
        print("select", socket.select({server}, nil, 0))
        local client
        emu.registerafter(function()
            if not client then
                local readable, writable = socket.select({server}, {}, 0)
                if readable[1] then
                    print("ready", readable[1] == server, readable[server], #writable)
                    client = assert(server:accept())
                    local ip, _, family = client:getpeername()
                    print("peer", ip, family)
                    client:settimeout(0)
                end
                return
            end
            local line = client:receive("*l")
            if line then
                print("got " .. line)
                print("send", client:send("HELLO " .. line .. "\n"))
                print("close", client:close(), server:close())
                print("accept after close", server:accept())
                print("done")
            end
        end)
    "#;
    let mut s = Session::new();
    s.load("server", script);
    let output = s.output();
    let port: u16 = output
        .lines()
        .find_map(|line| line.strip_prefix("PORT "))
        .and_then(|port| port.parse().ok())
        .unwrap_or_else(|| panic!("the script prints its port:\n{output}"));
    s.scripts.run_frame(&mut s.console);
    let mut stream = TcpStream::connect(("127.0.0.1", port)).expect("connect to the script");
    stream.write_all(b"hello\n").expect("send");
    s.run_until("done\n");
    let mut reply = String::new();
    BufReader::new(stream)
        .read_line(&mut reply)
        .expect("the script's reply");
    assert_eq!(reply, "HELLO hello\n");
    assert_eq!(
        s.output(),
        format!(
            "same module true nil\nserver userdata\nlistening 127.0.0.1 inet\nPORT {port}\n\
             settimeout 1\naccept nil timeout\nselect {{}} {{}} timeout\n\
             ready true 1 0\npeer 127.0.0.1 inet\ngot hello\nsend 12 nil nil\nclose 1 1\n\
             accept after close nil closed\ndone\n"
        )
    );
}

#[test]
fn receive_patterns_send_ranges_options_and_errors_follow_luasocket() {
    let script = r#"
        local socket = require("socket")
        local server = assert(socket.bind("127.0.0.1", 0))
        local _, port = server:getsockname()
        local c = assert(socket.connect("127.0.0.1", port))
        local a = assert(server:accept())
        print("connect again", c:connect("127.0.0.1", port))
        print("send", c:send("line one\r\nline two\nabcdefghij"))
        print("send range", c:send("0123456789", 3, 5))
        print("send negative range", c:send("0123456789", -2))
        print("send nothing", c:send("xyz", 3, 2))
        local r, w = socket.select({a, server}, {c}, 1)
        print("select", r[a], r[server], #r, w[c], #w)
        a:settimeout(1)
        print("default", a:receive())
        print("*l", a:receive("*l"))
        print("4", a:receive(4))
        print("3 after AB", a:receive(3, "AB"))
        print("2 after XYZ", a:receive(2, "XYZ"))
        print("dirty", a:dirty())
        a:settimeout(0)
        print("*l timeout", a:receive("*l"))
        print("dirty", a:dirty())
        print("100 timeout", a:receive(100, "so far"))
        print("*a timeout", a:receive("*a"))
        local start = socket.gettime()
        for _ = 1, 100 do a:receive() end
        print("timeout 0 never waits", socket.gettime() - start < 0.5)
        c:send("tail")
        print("shutdown", c:shutdown("send"))
        a:settimeout(1)
        print("*a", a:receive("*a"))
        print("*a again", a:receive("*a"))
        print("*l closed", a:receive("*l", "pre"))
        print("gettimeout", a:gettimeout())
        print("total timeout", a:settimeout(0.5, "t"), a:gettimeout())
        print("options", a:setoption("tcp-nodelay", true), a:getoption("tcp-nodelay"),
            a:setoption("keepalive", false), a:getoption("keepalive"))
        print("linger", a:setoption("linger", {on = true, timeout = 2}),
            a:getoption("linger").on, a:getoption("linger").timeout)
        print("close", c:close(), c:close())
        print("send closed", c:send("x"))
        print("receive closed", c:receive())
        print("getpeername closed", c:getpeername())
        local probe = assert(socket.bind("127.0.0.1", 0))
        local _, free = probe:getsockname()
        probe:close()
        print("refused", socket.connect("127.0.0.1", free))
        local master = socket.tcp()
        -- Errors without the caller's "file:line: " in front.
        local function caught(f)
            local ok, e = pcall(f)
            return ok, (tostring(e):gsub("^[^ ]*:%d+: ", ""))
        end
        print("master", caught(function() return master:getpeername() end))
        print("master refused", master:connect("127.0.0.1", free))
        print("now a client", caught(function() return master:listen() end))
        local function try(f) print(caught(f)) end
        try(function() return socket.connect() end)
        try(function() return socket.connect("127.0.0.1", port, nil, nil, "ipx") end)
        try(function() return a:send() end)
        try(function() return a:send({}) end)
        try(function() return a:receive("*x") end)
        try(function() return a:receive(-1) end)
        try(function() return a:settimeout(1, "x") end)
        try(function() return a:accept() end)
        try(function() return server:send("x") end)
        try(function() return a:setoption("nosuch", true) end)
        try(function() return a:setoption("keepalive", 1) end)
        try(function() return a:setoption("linger", {on = 1}) end)
        try(function() return a:shutdown("sideways") end)
        try(function() return socket.select(5) end)
        try(function() return socket.sleep("soon") end)
        print("not a socket", (pcall(a.send, "x")))
        local r, w, err = socket.select(nil, nil, 0.05)
        print("select nothing", #r, #w, err)
        socket.sleep(0.05)
        print("slept", socket.gettime() - start >= 0.1)
        print("gettime", socket.gettime() > 1.7e9)
        local nb = socket.tcp()
        nb:settimeout(0)
        local ok, err = nb:connect("127.0.0.1", port)
        if not ok then
            -- Under way: writable once connected.
            assert(err == "timeout", err)
            local _, writable = socket.select(nil, {nb}, 5)
            ok = writable[nb]
        end
        local ip, peer_port = nb:getpeername()
        print("non-blocking connect", ok, ip, peer_port == port)
    "#;
    let mut s = Session::new();
    s.load("patterns", script);
    assert_eq!(
        s.output(),
        "connect again nil already connected\n\
         send 29 nil nil\n\
         send range 5 nil nil\n\
         send negative range 10 nil nil\n\
         send nothing 2 nil nil\n\
         select 1 nil 1 1 1\n\
         default line one nil nil\n\
         *l line two nil nil\n\
         4 abcd nil nil\n\
         3 after AB ABe nil nil\n\
         2 after XYZ XYZ nil nil\n\
         dirty true\n\
         *l timeout nil timeout fghij23489\n\
         dirty false\n\
         100 timeout nil timeout so far\n\
         *a timeout nil timeout \n\
         timeout 0 never waits true\n\
         shutdown 1\n\
         *a tail nil nil\n\
         *a again nil closed \n\
         *l closed nil closed pre\n\
         gettimeout 1 -1\n\
         total timeout 1 1 0.5\n\
         options 1 true 1 false\n\
         linger 1 true 2\n\
         close 1 1\n\
         send closed nil closed 0\n\
         receive closed nil closed \n\
         getpeername closed nil closed\n\
         refused nil connection refused\n\
         master false calling 'getpeername' on bad self (tcp{client} expected)\n\
         master refused nil connection refused\n\
         now a client false calling 'listen' on bad self (tcp{master} expected)\n\
         false bad argument #1 to 'connect' (string expected, got no value)\n\
         false bad argument #5 to 'connect' (invalid option 'ipx')\n\
         false bad argument #1 to 'send' (string expected, got no value)\n\
         false bad argument #1 to 'send' (string expected, got table)\n\
         false bad argument #1 to 'receive' (invalid receive pattern)\n\
         false bad argument #1 to 'receive' (invalid receive pattern)\n\
         false bad argument #2 to 'settimeout' (invalid timeout mode)\n\
         false calling 'accept' on bad self (tcp{server} expected)\n\
         false calling 'send' on bad self (tcp{client} expected)\n\
         false bad argument #1 to 'setoption' (unsupported option `nosuch')\n\
         false bad argument #2 to 'setoption' (boolean expected, got number)\n\
         false bad argument #2 to 'setoption' (boolean 'on' field expected)\n\
         false bad argument #1 to 'shutdown' (invalid option 'sideways')\n\
         false bad argument #1 to 'select' (table expected, got number)\n\
         false bad argument #1 to 'sleep' (number expected, got string)\n\
         not a socket false\n\
         select nothing 0 0 timeout\n\
         slept true\n\
         gettime true\n\
         non-blocking connect 1 127.0.0.1 true\n"
    );
}

#[test]
fn a_receive_blocked_past_the_time_limit_stops_the_script() {
    let listener = TcpListener::bind("127.0.0.1:0").expect("listen on 127.0.0.1");
    let port = listener.local_addr().expect("port").port();
    // Accepts and never replies; holds the connection until the test ends.
    let _server = thread::spawn(move || listener.accept().map(|(stream, _)| stream));
    let script = r#"
        local socket = require("socket")
        local c = assert(socket.connect("127.0.0.1", PORT))
        print("connected")
        print(pcall(c.receive, c))
        print("not reached")
    "#
    .replace("PORT", &port.to_string());
    let mut s = Session::new();
    s.scripts.set_time_limit(Duration::from_millis(300));
    let start = Instant::now();
    s.load("blocked", &script);
    let elapsed = start.elapsed();
    let output = s.output();
    assert!(
        output.starts_with(
            "connected\nstderr: Lua thread bombed out: script ran 0.3 s without yielding"
        ),
        "{output}"
    );
    assert!(!output.contains("not reached"), "{output}");
    assert!(
        elapsed < Duration::from_secs(5),
        "stopped after {elapsed:?}"
    );
    s.scripts.run_frame(&mut s.console);
    assert!(!s.scripts.active(), "the script is stopped");
}

#[test]
fn socket_bot_example_lets_a_program_start_a_game_and_reports_spawns() {
    let listener = TcpListener::bind("127.0.0.1:0").expect("listen on 127.0.0.1");
    let port = listener.local_addr().expect("port").port();
    let (lines_tx, lines_rx) = std::sync::mpsc::channel();
    // Presses Start for one frame a second (the script takes one line a frame), and hands on
    // the status lines the script sends.
    let _server = thread::spawn(move || {
        let (mut stream, _) = listener.accept().expect("the script connects");
        let presses = format!("start\n{}", "\n".repeat(59)).repeat(30);
        stream.write_all(presses.as_bytes()).expect("write");
        for line in BufReader::new(stream).lines() {
            let Ok(line) = line else { break };
            if lines_tx.send(line).is_err() {
                break;
            }
        }
    });
    // The example as shipped, with BOT_PORT pointing at the test's server.
    let example = concat!(env!("CARGO_MANIFEST_DIR"), "/../../scripts/socket-bot.lua");
    let script = format!(
        r#"
        local getenv = os.getenv
        os.getenv = function(name) return name == "BOT_PORT" and "{port}" or getenv(name) end
        assert(loadfile({example:?}))()
        "#
    );
    let mut s = Session::new();
    s.load("bot", &script);
    const GAME_MODE: u16 = 0xC0;
    const PLAY: u8 = 4;
    for _ in 0..2400 {
        if s.console.inspect(GAME_MODE) == PLAY {
            break;
        }
        s.scripts.run_frame(&mut s.console);
    }
    assert_eq!(
        s.console.inspect(GAME_MODE),
        PLAY,
        "the presses started a game; output:\n{}",
        s.output()
    );
    // The game's first piece.
    for _ in 0..60 {
        s.scripts.run_frame(&mut s.console);
    }
    let lines: Vec<String> = lines_rx.try_iter().collect();
    assert!(!lines.is_empty(), "status lines arrived");
    for line in &lines {
        let words: Vec<&str> = line.split(' ').collect();
        assert!(
            matches!(words[..], ["piece", _, "next", _, "lines", _, "field", field]
                if field.len() == 200 && field.bytes().all(|c| c == b'.' || c == b'#')),
            "{line}"
        );
    }
    assert!(
        lines.last().is_some_and(|l| l.ends_with(&".".repeat(200))),
        "the new game's field is empty: {lines:?}"
    );
    assert_eq!(s.output(), "", "nothing printed, no errors");
}
