//! Unit tests against the APU alone. Cycle numbers follow the bus: `step()` runs a cycle, then
//! that cycle's register access happens.

use super::*;
use crate::xorshift::XorShift;

/// A fresh APU that has run `cycles` cycles.
fn apu_at(cycles: u64) -> Apu {
    let mut apu = Apu::default();
    run(&mut apu, cycles);
    apu
}

/// An APU that has run at least `cycles` cycles, on a cycle whose $4017 write takes effect 3
/// cycles later (blargg's "even jitter").
fn apu_synced(cycles: u64) -> Apu {
    let mut apu = apu_at(cycles);
    if !is_get_cycle(apu.cycle + 3) {
        apu.step();
    }
    apu
}

fn run(apu: &mut Apu, cycles: u64) {
    for _ in 0..cycles {
        apu.step();
    }
}

/// Runs until `done` holds, returning the cycles it took (panics after `limit`). `done` sees
/// the timers brought up to date after each cycle.
fn cycles_until(apu: &mut Apu, limit: u64, done: impl Fn(&Apu) -> bool) -> u64 {
    for n in 1..=limit {
        apu.step();
        apu.catch_up(apu.cycle);
        if done(apu) {
            return n;
        }
    }
    panic!("condition not met within {limit} cycles");
}

/// Pulse 1 enabled with a length of 254 and nothing halting it.
fn pulse1_counting(apu: &mut Apu) {
    apu.write_register(0x4015, 0x01);
    apu.write_register(0x4000, 0x00);
    apu.write_register(0x4003, 0x08); // index 1: 254
                                      // Length writes land on the next cycle; two keep the cycle parity.
    run(apu, 2);
}

#[test]
fn mode0_half_frames_come_14916_and_29832_cycles_after_the_write() {
    // blargg 2005 notes: with the write on an even cycle, lengths clock at 14915 and 29831,
    // which a read sees one cycle later.
    for start in [100, 101] {
        let mut apu = apu_at(start);
        let jitter = u64::from(!is_get_cycle(start + 2 + 3)); // the other alignment waits one more
        pulse1_counting(&mut apu);
        apu.write_register(0x4017, 0x00);
        let first = cycles_until(&mut apu, 40_000, |a| a.pulse1.length.count == 253);
        let second = cycles_until(&mut apu, 40_000, |a| a.pulse1.length.count == 252);
        assert_eq!(first, 14916 + jitter, "start {start}");
        assert_eq!(second, 29832 - 14916);
    }
}

#[test]
fn mode1_clocks_at_once_then_at_14916_and_37284() {
    let mut apu = apu_synced(200);
    pulse1_counting(&mut apu);
    apu.write_register(0x4017, 0x80);
    let immediate = cycles_until(&mut apu, 10, |a| a.pulse1.length.count == 253);
    assert_eq!(immediate, 3);
    let second = cycles_until(&mut apu, 40_000, |a| a.pulse1.length.count == 252);
    assert_eq!(immediate + second, 14916);
    let third = cycles_until(&mut apu, 40_000, |a| a.pulse1.length.count == 251);
    assert_eq!(immediate + second + third, 37284);
}

#[test]
fn writing_4017_in_mode0_does_not_clock() {
    let mut apu = apu_at(10);
    pulse1_counting(&mut apu);
    apu.write_register(0x4017, 0x00);
    run(&mut apu, 20);
    assert_eq!(apu.pulse1.length.count, 254);
}

#[test]
fn frame_irq_flag_is_set_three_cycles_running_from_29831() {
    // apu_test 6-irq_flag_timing: a read on the second of the three cycles is followed by one
    // more set, a read on the third is not.
    for (read_at, set_again) in [(1, true), (2, false)] {
        let mut apu = apu_synced(300);
        apu.write_register(0x4017, 0x00);
        let set = cycles_until(&mut apu, 40_000, |a| a.peek_status() & 0x40 != 0);
        assert_eq!(set, 29831);
        assert!(apu.irq_line());
        run(&mut apu, read_at);
        assert_eq!(apu.read_status() & 0x40, 0x40);
        run(&mut apu, 4);
        assert_eq!(
            apu.read_status() & 0x40 != 0,
            set_again,
            "read at +{read_at}"
        );
    }
}

#[test]
fn status_read_drops_the_frame_irq_on_the_next_get_cycle() {
    // AccuracyCoin "Frame Counter IRQ" 6 and 7: two reads in a row see the flag cleared only if
    // the first was on a put cycle.
    for first_on_get in [true, false] {
        let mut apu = apu_at(0);
        run(&mut apu, 30_000);
        if is_get_cycle(apu.cycle) != first_on_get {
            apu.step();
        }
        assert_eq!(apu.read_status() & 0x40, 0x40);
        apu.step();
        let second = apu.read_status() & 0x40;
        assert_eq!(
            second != 0,
            first_on_get,
            "first read on a get cycle: {first_on_get}"
        );
        run(&mut apu, 2);
        assert_eq!(apu.peek_status() & 0x40, 0);
        assert!(!apu.irq_line());
    }
}

#[test]
fn frame_irq_inhibit_and_mode1_never_set_the_flag_and_inhibit_clears_it() {
    for mode in [0x40, 0x80, 0xC0] {
        let mut apu = apu_at(0);
        apu.write_register(0x4017, mode);
        run(&mut apu, 80_000);
        assert_eq!(apu.peek_status() & 0x40, 0, "mode {mode:02X}");
    }
    let mut apu = apu_at(0);
    run(&mut apu, 30_000);
    assert_ne!(
        apu.peek_status() & 0x40,
        0,
        "power-on mode 0 raises the flag"
    );
    apu.write_register(0x4017, 0x00);
    assert_ne!(apu.peek_status() & 0x40, 0, "$00 leaves it");
    apu.write_register(0x4017, 0x40);
    assert_eq!(apu.peek_status() & 0x40, 0, "$40 clears it");
}

#[test]
fn power_on_acts_as_4017_written_ten_or_eleven_cycles_before_the_first_instruction() {
    // The CPU's reset sequence takes 7 cycles, so its first instruction starts at cycle 8;
    // the frame IRQ then rises 29831 cycles after a write at cycle -3 (or -2).
    let mut apu = Apu::default();
    let set = cycles_until(&mut apu, 40_000, |a| a.peek_status() & 0x40 != 0);
    assert!([29831 - 3, 29831 - 2].contains(&set), "{set}");
}

#[test]
fn reset_rewrites_the_last_4017_value_and_clears_4015() {
    let mut apu = apu_at(1000);
    pulse1_counting(&mut apu);
    apu.write_register(0x4017, 0x80);
    run(&mut apu, 5000);
    apu.reset();
    assert_eq!(apu.peek_status(), 0);
    run(&mut apu, 80_000);
    assert_eq!(apu.peek_status() & 0x40, 0, "still in 5-step mode");
}

#[test]
fn halt_changes_take_effect_after_the_same_cycle_clock() {
    // 10.len_halt_timing: setting halt on the clock's own cycle is too late, one before is not.
    for (delay, halt_value, clocked) in [
        (14914, 0x20, false),
        (14915, 0x20, true),
        (14914, 0x00, true),
        (14915, 0x00, false),
    ] {
        let mut apu = apu_synced(500);
        pulse1_counting(&mut apu);
        apu.write_register(0x4000, 0x20 ^ halt_value);
        apu.write_register(0x4017, 0x00);
        run(&mut apu, delay);
        apu.write_register(0x4000, halt_value);
        run(&mut apu, 2);
        assert_eq!(
            apu.pulse1.length.count == 253,
            clocked,
            "halt {halt_value:02X} at {delay}"
        );
    }
}

#[test]
fn reload_on_the_clock_cycle_is_lost_unless_the_counter_was_zero() {
    // 11.len_reload_timing.
    for (delay, zero_first, expect) in [
        (14914, false, 253), // reloaded (254), then clocked
        (14915, false, 253), // clocked to 253, reload ignored
        (14916, false, 254), // after the clock: reloaded
        (14915, true, 254),  // counter was 0: reload works, no clock
    ] {
        let mut apu = apu_synced(600);
        pulse1_counting(&mut apu);
        if zero_first {
            apu.write_register(0x4015, 0x00);
            apu.write_register(0x4015, 0x01);
            run(&mut apu, 2);
        }
        apu.write_register(0x4017, 0x00);
        run(&mut apu, delay);
        apu.write_register(0x4003, 0x08);
        run(&mut apu, 2);
        assert_eq!(apu.pulse1.length.count, expect, "delay {delay}");
    }
}

#[test]
fn status_write_disables_and_blocks_length_loads() {
    let mut apu = apu_at(0);
    apu.write_register(0x4015, 0x0F);
    for addr in [0x4003, 0x4007, 0x400B, 0x400F] {
        apu.write_register(addr, 0x08);
    }
    apu.step();
    assert_eq!(apu.peek_status() & 0x0F, 0x0F);
    apu.write_register(0x4015, 0x00);
    assert_eq!(apu.peek_status() & 0x0F, 0);
    apu.write_register(0x4003, 0x08);
    apu.step();
    assert_eq!(
        apu.peek_status() & 0x0F,
        0,
        "loads are ignored while disabled"
    );
}

#[test]
fn length_table_entries() {
    let expected = [
        10, 254, 20, 2, 40, 4, 80, 6, 160, 8, 60, 10, 14, 12, 26, 14, 12, 16, 24, 18, 48, 20, 96,
        22, 192, 24, 72, 26, 16, 28, 32, 30,
    ];
    let mut apu = apu_at(0);
    apu.write_register(0x4015, 0x01);
    for (index, &count) in expected.iter().enumerate() {
        apu.write_register(0x4003, (index as u8) << 3);
        apu.step();
        assert_eq!(apu.pulse1.length.count, count, "index {index}");
    }
}

#[test]
fn sweep_negates_in_ones_complement_on_pulse1_only() {
    let mut apu = apu_at(0);
    apu.write_register(0x4015, 0x03);
    for base in [0x4000, 0x4004] {
        apu.write_register(base, 0x3F);
        apu.write_register(base + 1, 0x89); // enabled, divider period 0, negate, shift 1
        apu.write_register(base + 2, 100);
        apu.write_register(base + 3, 0x08);
    }
    apu.write_register(0x4017, 0x80); // 5-step: clocks a half frame
    run(&mut apu, 4);
    assert_eq!(apu.pulse1.period, 100 - 50 - 1);
    assert_eq!(apu.pulse2.period, 100 - 50);
}

#[test]
fn sweep_target_past_7ff_or_period_under_8_mutes() {
    let mut pulse = Pulse::pulse2();
    pulse.length.set_enabled(true);
    pulse.write(0, 0xBF); // duty 2, halt, constant volume 15
    pulse.write(3, 0x08 | 0x04);
    pulse.length.apply_writes(false); // period $400
    pulse.write(2, 0x00);
    pulse.write(1, 0x00); // sweep off, shift 0: target $800 still mutes
    assert!((0..16).all(|_| {
        pulse.step_timer();
        pulse.output() == 0
    }));
    pulse.write(3, 0x08 | 0x03);
    pulse.length.apply_writes(false); // period $300: audible
    let outputs: Vec<u8> = (0..(0x301 * 8))
        .map(|_| {
            pulse.step_timer();
            pulse.output()
        })
        .collect();
    assert!(outputs.contains(&15));
    pulse.write(3, 0x08);
    pulse.length.apply_writes(false);
    pulse.write(2, 7); // period 7
    assert!((0..64).all(|_| {
        pulse.step_timer();
        pulse.output() == 0
    }));
}

#[test]
fn pulse_duty_cycles() {
    for (duty, high_steps) in [(0, 1), (1, 2), (2, 4), (3, 6)] {
        let mut pulse = Pulse::pulse2();
        pulse.length.set_enabled(true);
        pulse.write(0, (duty << 6) | 0x3F);
        pulse.write(2, 20);
        pulse.write(3, 0x08);
        pulse.length.apply_writes(false);
        let high = (0..8 * 21)
            .map(|_| {
                pulse.step_timer();
                pulse.output()
            })
            .filter(|&v| v == 15)
            .count();
        assert_eq!(high, high_steps * 21, "duty {duty}");
    }
}

#[test]
fn envelope_decays_and_loops() {
    let mut env = envelope::Envelope::default();
    env.write(0x00); // decay, period 0 (one quarter frame per step), no loop
    env.restart();
    env.quarter_frame();
    assert_eq!(env.output(), 15);
    for _ in 0..15 {
        env.quarter_frame();
    }
    assert_eq!(env.output(), 0);
    env.quarter_frame();
    assert_eq!(env.output(), 0, "stays at 0 without loop");
    env.write(0x20);
    env.quarter_frame();
    assert_eq!(env.output(), 15, "loop restarts at 15");
}

#[test]
fn triangle_needs_both_counters_and_steps_through_32_levels() {
    let mut tri = Triangle::default();
    tri.length.set_enabled(true);
    tri.write(0, 0x7F); // linear reload 127, control clear
    tri.write(2, 10);
    tri.write(3, 0x08);
    tri.length.apply_writes(false);
    for _ in 0..50 {
        tri.step_timer();
    }
    assert_eq!(tri.output(), 15, "no linear count yet: the triangle holds");
    tri.quarter_frame(); // loads the linear counter
    let levels: Vec<u8> = (0..32 * 11)
        .filter_map(|n| {
            tri.step_timer();
            (n % 11 == 0).then(|| tri.output())
        })
        .collect();
    let mut sorted = levels.clone();
    sorted.sort_unstable();
    sorted.dedup();
    assert_eq!(sorted, (0..16).collect::<Vec<u8>>());
}

#[test]
fn triangle_linear_counter_reload_and_control() {
    let mut tri = Triangle::default();
    tri.write(0, 0x03);
    tri.write(3, 0x00);
    tri.length.apply_writes(false);
    tri.quarter_frame();
    assert_eq!(tri.linear_counter, 3);
    tri.quarter_frame();
    assert_eq!(
        tri.linear_counter, 2,
        "reload flag cleared when control is clear"
    );
    tri.write(0, 0x83);
    tri.write(3, 0x00);
    tri.length.apply_writes(false);
    tri.quarter_frame();
    tri.quarter_frame();
    assert_eq!(tri.linear_counter, 3, "control keeps reloading");
}

/// Steps of the noise LFSR until it returns to its state.
fn lfsr_cycle_length(mode: u8) -> u32 {
    let mut noise = Noise::default();
    noise.write(2, mode); // period index 0: two APU cycles per shift
    let start = noise.shift;
    for n in 1..=40_000 {
        noise.step_timer();
        noise.step_timer();
        if noise.shift == start {
            return n;
        }
    }
    panic!("no cycle");
}

#[test]
fn noise_lfsr_modes() {
    assert_eq!(lfsr_cycle_length(0x00), 32767);
    assert_eq!(lfsr_cycle_length(0x80), 93);
}

#[test]
fn noise_period_in_cpu_cycles() {
    let mut apu = apu_at(0);
    apu.write_register(0x400E, 0x0F); // 4068 cycles
    let start = apu.noise.shift;
    let first = cycles_until(&mut apu, 10_000, |a| a.noise.shift != start);
    let next = apu.noise.shift;
    let period = cycles_until(&mut apu, 10_000, |a| a.noise.shift != next);
    assert_eq!(period, 4068, "first shift after {first}");
}

/// The DMC with a sample of `length_reg` ($4013) and the DMA answered at once with `byte`.
fn dmc_playing(flags: u8, length_reg: u8) -> Apu {
    let mut apu = apu_at(10);
    apu.write_register(0x4010, flags);
    apu.write_register(0x4012, 0x00);
    apu.write_register(0x4013, length_reg);
    apu.write_register(0x4015, 0x10);
    run(&mut apu, 3); // the DMC starts 2 or 3 cycles after the write
    apu
}

/// Runs `cycles`, serving DMC DMA requests the moment they come; returns the fetch count.
fn run_with_dma(apu: &mut Apu, cycles: u64, byte: u8) -> u32 {
    let mut fetches = 0;
    for _ in 0..cycles {
        if apu.dmc_dma_request().is_some() {
            apu.dmc_dma_complete(byte);
            fetches += 1;
        }
        apu.step();
    }
    fetches
}

#[test]
fn dmc_load_dma_starts_on_a_get_cycle_three_or_four_cycles_after_4015() {
    for start in [20, 21] {
        let mut apu = apu_at(start);
        apu.write_register(0x4013, 0);
        apu.write_register(0x4015, 0x10);
        let mut waited = 0;
        while apu.dmc_dma_request().is_none() {
            apu.step();
            waited += 1;
        }
        assert!(apu.next_cycle_is_get());
        assert!((2..=3).contains(&waited), "waited {waited}");
        assert_eq!(apu.dmc_dma_request(), Some(0xC000));
    }
}

#[test]
fn dmc_enable_lands_on_the_put_cycle_before_the_load_dma() {
    for start in [20, 21] {
        let mut apu = apu_at(start);
        apu.write_register(0x4013, 0);
        apu.write_register(0x4015, 0x10);
        let waited = cycles_until(&mut apu, 10, |a| a.peek_status() & 0x10 != 0);
        assert!((2..=3).contains(&waited), "waited {waited}");
        assert!(apu.next_cycle_is_get());
        assert_eq!(apu.dmc_dma_request(), Some(0xC000));
    }
}

#[test]
fn dmc_sample_plays_its_length_then_raises_irq() {
    // $4013 = 1: 17 bytes. Rate 15: 54 cycles per bit, 432 per byte.
    let mut apu = dmc_playing(0x8F, 0x01);
    assert_eq!(apu.peek_status() & 0x10, 0x10);
    let fetches = run_with_dma(&mut apu, 432 * 20, 0xFF);
    assert_eq!(fetches, 17);
    assert_eq!(apu.peek_status() & 0x90, 0x80, "done, IRQ flag up");
    assert!(apu.irq_line());
    apu.read_status();
    assert!(apu.irq_line(), "reading $4015 does not clear the DMC IRQ");
    apu.write_register(0x4015, 0x00);
    assert!(!apu.irq_line(), "writing $4015 does");
}

#[test]
fn dmc_loop_refetches_forever_without_irq() {
    let mut apu = dmc_playing(0xCF, 0x00);
    let fetches = run_with_dma(&mut apu, 432 * 30, 0x00);
    assert!(fetches >= 29, "fetches {fetches}");
    assert_eq!(apu.peek_status() & 0x90, 0x10);
}

#[test]
fn dmc_output_moves_by_two_and_direct_load_sets_it() {
    let mut apu = dmc_playing(0x0F, 0x01);
    apu.write_register(0x4011, 0x40);
    assert_eq!(apu.dmc.output_level, 0x40);
    run_with_dma(&mut apu, 432 * 3, 0xFF);
    assert!(apu.dmc.output_level > 0x40);
    assert_eq!(apu.dmc.output_level % 2, 0);
    apu.write_register(0x4011, 0xFF);
    assert_eq!(apu.dmc.output_level, 0x7F);
}

#[test]
fn dmc_disable_stops_fetching() {
    let mut apu = dmc_playing(0x0F, 0xFF);
    run_with_dma(&mut apu, 1000, 0x55);
    apu.write_register(0x4015, 0x00);
    run(&mut apu, 3); // the disable's delay
    assert_eq!(apu.peek_status() & 0x10, 0);
    assert_eq!(run_with_dma(&mut apu, 5000, 0x55), 0);
}

// ---- Audio output ----

#[test]
fn output_rate_is_kept_in_a_sane_range() {
    let mut apu = Apu::default();
    for (asked, got) in [
        (0.0, 8_000.0),
        (-5.0, 8_000.0),
        (1e12, 384_000.0),
        (f64::NAN, 48_000.0),
    ] {
        apu.set_sample_rate(asked);
        assert_eq!(apu.sample_rate(), got);
    }
}

#[test]
fn output_rate_follows_the_setting() {
    let mut apu = Apu::default();
    apu.set_sample_rate(44_100.0);
    let mut samples = Vec::new();
    run(&mut apu, CPU_CLOCK_HZ as u64);
    apu.take_samples(&mut samples);
    assert!(
        (44_099..=44_101).contains(&samples.len()),
        "{}",
        samples.len()
    );
}

#[test]
fn inhibited_frame_irq_flag_still_shows_for_two_cycles_without_an_interrupt() {
    let mut apu = apu_synced(300);
    apu.write_register(0x4017, 0x40);
    run(&mut apu, 29830);
    let seen: Vec<bool> = (0..4)
        .map(|_| {
            apu.step();
            assert!(!apu.irq_line());
            apu.peek_status() & 0x40 != 0
        })
        .collect();
    assert_eq!(seen, [true, true, false, false]);
}

#[test]
fn dmc_disable_acts_on_the_put_cycle_before_the_load_dma_get() {
    for start in [100, 101] {
        let mut apu = apu_at(start);
        apu.write_register(0x4013, 0x01); // 17 bytes
        apu.write_register(0x4015, 0x10);
        run(&mut apu, 8);
        assert_ne!(apu.peek_status() & 0x10, 0);
        apu.write_register(0x4015, 0x00);
        // As an enable: 2 cycles on when cycle +3 is a get cycle, else 3.
        let delay = if is_get_cycle(apu.cycle + 3) { 2 } else { 3 };
        let took = cycles_until(&mut apu, 10, |apu| apu.peek_status() & 0x10 == 0);
        assert_eq!(took, delay, "start {start}");
    }
}

// ---- Event to event ----

/// What anyone outside can see of the APU after a cycle, the timers brought up to date.
fn observe(apu: &Apu) -> (u8, bool, Option<u16>, Vec<u8>) {
    let mut copy = apu.clone();
    let state = StateIo::save(|io| copy.visit(io));
    (
        apu.peek_status(),
        apu.irq_line(),
        apu.dmc_dma_request(),
        state,
    )
}

/// Register writes, $4015 reads, DMC DMAs, resets and rate changes at random cycles, for an
/// APU that runs from event to event and one that runs every cycle in full (as before the
/// events): every observation, every save state and every sample must be identical.
#[test]
fn events_give_exactly_what_running_every_cycle_gives() {
    const REGISTERS: [u16; 22] = [
        0x4000, 0x4001, 0x4002, 0x4003, 0x4004, 0x4005, 0x4006, 0x4007, 0x4008, 0x400A, 0x400B,
        0x400C, 0x400E, 0x400F, 0x4010, 0x4011, 0x4012, 0x4013, 0x4015, 0x4015, 0x4017, 0x4017,
    ];
    let mut program = XorShift(0x9E37_79B9_7F4A_7C15);
    let mut events = Apu::default();
    let mut every_cycle = Apu::default();
    let (mut heard, mut reference) = (Vec::new(), Vec::new());
    for cycle in 0..3_000_000u64 {
        every_cycle.next_event = 0;
        every_cycle.step();
        events.step();
        if program.one_in(150) {
            let addr = REGISTERS[program.next() as usize % REGISTERS.len()];
            // $4015 mostly enables everything, so the channels sound.
            let val = match program.next() as u8 {
                v if addr == 0x4015 && v < 200 => 0x1F,
                v => v,
            };
            for apu in [&mut events, &mut every_cycle] {
                apu.write_register(addr, val);
            }
        }
        if program.one_in(400) {
            assert_eq!(events.read_status(), every_cycle.read_status());
        }
        if events.dmc_dma_request().is_some() && program.one_in(3) {
            let byte = program.next() as u8;
            events.dmc_dma_complete(byte);
            every_cycle.dmc_dma_complete(byte);
        }
        if program.one_in(200_000) {
            events.reset();
            every_cycle.reset();
        }
        if program.one_in(30_000) {
            let rate = 8_000.0 + (program.next() % 90_000) as f64;
            events.set_sample_rate(rate);
            every_cycle.set_sample_rate(rate);
        }
        if program.one_in(20_000) {
            events.take_samples(&mut heard);
            every_cycle.take_samples(&mut reference);
        }
        if cycle % 997 == 0 {
            assert_eq!(observe(&events), observe(&every_cycle), "cycle {cycle}");
        } else {
            assert_eq!(events.irq_line(), every_cycle.irq_line(), "cycle {cycle}");
            assert_eq!(events.dmc_dma_request(), every_cycle.dmc_dma_request());
        }
    }
    events.take_samples(&mut heard);
    every_cycle.take_samples(&mut reference);
    assert!(heard.iter().filter(|&&s| s != 0).count() > heard.len() / 2);
    assert!(heard == reference, "the samples differ");
}

/// `Apu::run` over many cycles at once (as the bus's idle-loop skip uses it) against as many
/// single steps, with random register writes and DMC DMAs served in between.
#[test]
fn running_many_cycles_at_once_matches_single_steps() {
    const REGISTERS: [u16; 8] = [
        0x4000, 0x4003, 0x4008, 0x400B, 0x400C, 0x400F, 0x4015, 0x4017,
    ];
    let mut program = XorShift(0x2545_F491_4F6C_DD1D);
    let mut at_once = Apu::default();
    let mut stepped = Apu::default();
    let (mut heard, mut reference) = (Vec::new(), Vec::new());
    for _ in 0..20_000 {
        let cycles = 1 + program.next() % 3_000;
        at_once.run(cycles);
        for _ in 0..cycles {
            stepped.step();
        }
        let addr = REGISTERS[program.next() as usize % REGISTERS.len()];
        let val = program.next() as u8 | if addr == 0x4015 { 0x0F } else { 0 };
        for apu in [&mut at_once, &mut stepped] {
            apu.write_register(addr, val);
            if apu.dmc_dma_request().is_some() {
                apu.dmc_dma_complete(0x55);
            }
        }
        assert_eq!(observe(&at_once), observe(&stepped));
    }
    at_once.take_samples(&mut heard);
    stepped.take_samples(&mut reference);
    assert!(heard.iter().filter(|&&s| s != 0).count() > heard.len() / 2);
    assert!(heard == reference, "the samples differ");
}
