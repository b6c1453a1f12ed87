import pathlib
import sys
import threading
import time

import numpy as np
import pytest

import nestor

QUADFALL_ROM = pathlib.Path(__file__).resolve().parents[3] / "roms" / "quadfall.nes"
GAME_MODE, MODE_TITLE = 0xC0, 1


def to_title(console):
    """Taps Start past the legal screen (Start on one frame, released on the next)."""
    for _ in range(1000):
        if console.ram[GAME_MODE] == MODE_TITLE:
            return
        console.step(nestor.START)
        console.step(0)
    raise AssertionError("never reached the title")


def test_quadfall_is_the_default_and_runs_to_its_title():
    c = nestor.Console()
    assert c.frame_count == 0
    c.step(0)
    assert c.frame_count == 1
    to_title(c)
    for _ in range(20):
        c.step(0)
    frame = c.frame()
    assert frame.shape == (240, 256, 3) and frame.dtype == np.uint8
    assert len(np.unique(frame.reshape(-1, 3), axis=0)) > 2, "the title has colours"


def test_rom_from_path_and_bytes_runs_the_same():
    by_path, by_bytes = nestor.Console(str(QUADFALL_ROM)), nestor.Console(QUADFALL_ROM.read_bytes())
    for c in (by_path, by_bytes):
        for _ in range(120):
            c.step(0)
    assert bytes(by_path.ram) == bytes(by_bytes.ram)
    assert np.array_equal(by_path.frame(), by_bytes.frame())


def test_bad_roms_raise_with_one_line_messages():
    with pytest.raises(ValueError, match=r"^ROM bytes: not an iNES file"):
        nestor.Console(b"not a rom")
    with pytest.raises(ValueError, match=r"^ROM bytes: "):
        nestor.Console(QUADFALL_ROM.read_bytes()[:1000])
    with pytest.raises(OSError, match=r"^cannot read /nonexistent/x.nes: "):
        nestor.Console("/nonexistent/x.nes")
    with pytest.raises(TypeError):
        nestor.Console(42)


def test_bad_buttons_and_addresses_raise():
    c = nestor.Console()
    for bad in (-1, 256):
        with pytest.raises(ValueError, match="button mask"):
            c.step(bad)
        with pytest.raises(ValueError, match="is not a byte"):
            c.write(0, bad)
    for bad in (-1, 0x10000):
        with pytest.raises(ValueError, match="address"):
            c.read(bad)
    with pytest.raises(ValueError, match="port"):
        c.set_buttons(0, port=2)
    with pytest.raises(IndexError):
        c.ram[0x800]
    with pytest.raises(ValueError):
        c.ram[0] = 300
    assert c.frame_count == 0, "nothing ran"


def test_ram_is_a_live_view_and_read_write_reach_the_bus():
    c = nestor.Console()
    c.ram[0x10] = 0xAB
    assert c.read(0x10) == 0xAB and c.read(0x810) == 0xAB, "RAM mirrors"
    c.write(0x11, 0xCD)
    assert c.ram[0x11] == 0xCD and c.ram[-0x7EF] == 0xCD
    c.ram[0x20:0x23] = [1, 2, 3]
    assert c.ram[0x20:0x23] == b"\x01\x02\x03"
    assert len(c.ram) == 2048 and len(bytes(c.ram)) == 2048
    assert np.asarray(c.ram)[0x22] == 3
    assert c.read(0xFFFC) == QUADFALL_ROM.read_bytes()[16 + 0x7FFC], "reset vector from PRG-ROM"


def test_save_and_load_state_replay_exactly():
    c = nestor.Console()
    for _ in range(60):
        c.step(0)
    state = c.save_state()
    run = lambda: [c.step(nestor.START if i % 7 == 0 else 0) for i in range(90)]
    run()
    first = (bytes(c.ram), c.frame().tobytes(), c.frame_count)
    c.load_state(state)
    assert c.frame_count == 60
    run()
    assert (bytes(c.ram), c.frame().tobytes(), c.frame_count) == first


def test_bad_states_raise_and_leave_the_console_alone():
    c = nestor.Console()
    c.step(0)
    before = bytes(c.ram)
    with pytest.raises(ValueError, match="not a nestor save state"):
        c.load_state(b"garbage")
    state = bytearray(c.save_state())
    state[len(state) // 2] ^= 0xFF
    with pytest.raises(ValueError, match="corrupted"):
        c.load_state(bytes(state))
    with pytest.raises(ValueError, match="truncated"):
        c.load_state(c.save_state()[:100])
    assert bytes(c.ram) == before


def test_audio_comes_at_the_sample_rate():
    c = nestor.Console()
    c.audio()
    for _ in range(60):
        c.step(0)
    samples = c.audio()
    assert samples.dtype == np.int16
    # One second of frames at 60.0988 Hz: a second of samples, within a frame.
    assert abs(len(samples) - c.sample_rate * 60 / 60.0988) < c.sample_rate / 60
    assert len(c.audio()) == 0, "taken"


def test_reset_restarts_the_game_at_its_legal_screen():
    c = nestor.Console()
    to_title(c)
    c.reset()
    for _ in range(10):
        c.step(0)
    assert c.ram[GAME_MODE] == 0, "legal screen"


def test_vec_console_matches_single_consoles_on_any_thread_count():
    # Each batch step holds a mask for 2 frames, on the same thread pool every time.
    inputs = [[(i * 37 + k) % 256 if k % 3 else 0 for k in range(5)] for i in range(80)]
    singles = [nestor.Console() for _ in range(5)]
    for pads in inputs:
        for c, pad in zip(singles, pads):
            c.step(pad)
            c.step(pad)
    for threads in (1, 2, 3):
        v = nestor.VecConsole(5, threads=threads)
        assert v.threads == threads
        for pads in inputs[:-1]:
            ram, pictures = v.step(pads, frames=2)
            assert pictures is None
        ram, pictures = v.step(inputs[-1], frames=2, pixels=True)
        assert ram.shape == (5, 2048) and pictures.shape == (5, 240, 256, 3)
        for i, c in enumerate(singles):
            assert v.save_state(i) == c.save_state(), "the whole machine, not only RAM"
            assert bytes(ram[i]) == bytes(c.ram)
            assert np.array_equal(pictures[i], c.frame())


def pool_threads():
    """Thread IDs of this process's VecConsole pool threads (Linux: named in /proc)."""
    tasks = pathlib.Path("/proc/self/task")
    return {t.name for t in tasks.iterdir() if (t / "comm").read_text().startswith("nestor-vec")}


@pytest.mark.skipif(not pathlib.Path("/proc/self/task").is_dir(), reason="needs Linux's /proc")
def test_vec_console_keeps_its_threads_across_steps():
    # The calling thread is one of the three: the pool adds two.
    earlier = pool_threads()  # other tests' pools, maybe still exiting
    v = nestor.VecConsole(4, threads=3)
    v.step([0] * 4)
    threads = pool_threads() - earlier
    for _ in range(20):
        v.step([0] * 4)
    assert len(threads) == 2 and pool_threads() - earlier == threads


def test_frames_argument_runs_that_many_frames():
    one, many = nestor.Console(), nestor.Console()
    for _ in range(30):
        one.step(nestor.START)
    many.step(nestor.START, frames=30)
    assert many.frame_count == 30 and many.save_state() == one.save_state()
    many.run_frame(frames=5)
    assert many.frame_count == 35


def probes_during(call, probe):
    """What `probe()` returned each time another Python thread ran it while `call()` ran in
    this one. The switch interval is made so long that this thread keeps the GIL unless
    `call` releases it, and the other thread sleeps between probes, which releases it."""
    in_call, done, results = [False], [False], []

    def run_probes():
        while not done[0]:
            if in_call[0]:
                results.append(probe())
            time.sleep(0.001)

    prober = threading.Thread(target=run_probes)
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1000)
    try:
        prober.start()
        in_call[0] = True
        call()
        in_call[0] = False
        done[0] = True
        prober.join()
    finally:
        sys.setswitchinterval(interval)
    return results


@pytest.mark.parametrize("what", ["step", "run_frame", "VecConsole.step"])
def test_long_runs_release_the_gil(what):
    c, v = nestor.Console(), nestor.VecConsole(2, threads=2)
    call = {
        "step": lambda: c.step(0, frames=3000),
        "run_frame": lambda: c.run_frame(frames=3000),
        "VecConsole.step": lambda: v.step([0, 0], frames=3000),
    }[what]
    assert len(probes_during(call, lambda: None)) > 0, "another thread ran meanwhile"
    assert probes_during(lambda: sum(range(3_000_000)), lambda: None) == [], "a call holding the GIL stops it"


def raised(use):
    """The type of what `use()` raises, None if nothing."""
    try:
        use()
    except Exception as e:
        return type(e)


def test_a_console_stepping_in_another_thread_raises_runtime_error():
    c = nestor.Console()

    def write():
        c.ram[0] = 1

    uses = [lambda: c.ram[0], lambda: bytes(c.ram), lambda: np.asarray(c.ram), write, lambda: c.step(0)]
    results = probes_during(lambda: c.step(0, frames=3000), lambda: [raised(u) for u in uses])
    assert results and all(r == [RuntimeError] * len(uses) for r in results)
    assert c.frame_count == 3000, "only the call ran frames"
    assert raised(lambda: c.ram[0]) is None


def test_vec_console_bad_input_raises():
    v = nestor.VecConsole(2)
    with pytest.raises(ValueError, match="2 consoles"):
        v.step([0])
    with pytest.raises(ValueError, match="button mask"):
        v.step([0, 256])
    with pytest.raises(IndexError):
        v.read(2, 0)
    with pytest.raises(ValueError):
        nestor.VecConsole(0)
    with pytest.raises(ValueError):
        v.load_state(0, b"junk")
    state = v.save_state(1)
    v.load_state(0, state)
    assert v.read(0, 0x17) == v.read(1, 0x17)


def test_the_built_in_rom_is_quadfall():
    assert nestor.quadfall_rom() == QUADFALL_ROM.read_bytes()
