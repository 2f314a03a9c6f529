/*
 * TowerLab button box firmware for an ATmega328P at 16 MHz (Arduino Uno / Nano).
 *
 * Closes the Dark Tower's 12 key contacts (through CD4066 switches or optocouplers), switches
 * the tower's power (relay / MOSFET) and pulses a SYNC line, on framed commands from the host
 * over the UART (115200 8N1). The frame format is defined on the host side in rig/protocol.py
 * (construct); this file must agree with it:
 *
 *   frame   = 0xA5 0x5A type:u8 seq:u8 len:u8 payload[len] crc:u16le
 *   crc     = CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF) over type, seq, len, payload
 *
 * Every action can be scheduled at a device time ("at_us", microseconds of Timer1, 0xFFFFFFFF =
 * now), so key timing does not depend on USB latency; up to 32 actions wait in a queue and run
 * in time order (equal times: in the order they arrived). A command repeated with the same seq
 * and type is answered again but not executed twice (the host resends after a lost reply; a
 * HELLO is always answered afresh and starts a new dedup history). Bytes
 * that do not form a frame with a good CRC are dropped and counted; the parser hunts for the
 * next magic. If no good frame arrives for watchdog_ms, every key is released.
 *
 * Pins (see rig/README.md, wiring):
 *   PD2..PD7 = keys 0..5, PB0..PB5 = keys 6..11 (captures.script.BUTTONS order), high = closed
 *   PC0 = tower power (high = on), PC1 = SYNC (high pulse)
 */
#include <avr/interrupt.h>
#include <avr/io.h>
#include <avr/sleep.h>
#include <stdint.h>

#define FW_MAJOR 1
#define FW_MINOR 1
#define PROTO_VERSION 1
#define N_BUTTONS 12
#define NOW 0xFFFFFFFFUL

enum {
    CMD_HELLO = 0x01, CMD_PRESS = 0x02, CMD_RELEASE = 0x03, CMD_RELEASE_ALL = 0x04,
    CMD_POWER = 0x05, CMD_SYNC = 0x06, CMD_STATUS = 0x07, CMD_WATCHDOG = 0x08,
    REP_ACK = 0x80, REP_HELLO = 0x81, REP_STATUS = 0x87, REP_NAK = 0x7F,
};
enum { NAK_BAD_BUTTON = 1, NAK_BAD_LENGTH = 2, NAK_UNKNOWN = 3, NAK_QUEUE_FULL = 4 };
enum { ACK_DONE = 0, ACK_SCHEDULED = 1, ACK_LATE = 2 };

/* ---- time: Timer1 at clk/8 = 2 MHz (2 ticks a microsecond), overflowing every 32768 us;
 * device time = overflows * 32768 + TCNT1 / 2 microseconds, a full 32-bit count that wraps
 * after 2**32 us = 71.6 min, as rig/protocol.py and the host's unwrapping expect (a 32-bit
 * count of ticks halved would wrap at 2**31 us, tests/rig/test_link_hostile.py) ---- */

#ifndef TIME_AT_RESET_US
#define TIME_AT_RESET_US 0      /* tests start the clock near its wrap (rig/build.py) */
#endif
static volatile uint32_t t1_overflows = (uint32_t)(TIME_AT_RESET_US) >> 15;

ISR(TIMER1_OVF_vect) { t1_overflows++; }
EMPTY_INTERRUPT(TIMER0_OVF_vect);     /* a 1.024 ms wake-up tick for the main loop */

static uint32_t now_us(void)
{
    uint8_t sreg = SREG;
    cli();
    uint16_t lo = TCNT1;
    uint32_t hi = t1_overflows;
    if ((TIFR1 & _BV(TOV1)) && lo < 0x8000)
        hi++;
    SREG = sreg;
    return (hi << 15) | (lo >> 1);
}

/* True when device time a is at or after b (wrap-safe). */
static uint8_t reached(uint32_t a, uint32_t b) { return (int32_t)(a - b) >= 0; }

/* ---- outputs ---- */

static uint16_t buttons;       /* bit i = key i closed */
static uint8_t powered;

static void write_buttons(uint16_t mask)
{
    buttons = mask & 0x0FFF;
    PORTD = (PORTD & 0x03) | (uint8_t)((buttons & 0x3F) << 2);
    PORTB = (PORTB & 0xC0) | (uint8_t)((buttons >> 6) & 0x3F);
}

static void write_power(uint8_t on)
{
    powered = on ? 1 : 0;
    if (powered) PORTC |= _BV(PC0); else PORTC &= ~_BV(PC0);
}

/* ---- schedule: a queue of timed actions, run in time order (then in arrival order) ---- */

enum { ACT_PRESS = 1, ACT_RELEASE, ACT_RELEASE_ALL, ACT_POWER_ON, ACT_POWER_OFF, ACT_SYNC_HIGH,
       ACT_SYNC_LOW };
#define QUEUE_LEN 32

static struct { uint32_t at; uint8_t kind, arg, order; } queue[QUEUE_LEN];
static uint8_t queued;
static uint8_t next_order;
static uint32_t soonest;       /* the earliest pending action's time (meaningful when queued),
                                * kept by schedule and run_due for poll_due and the main loop */

/* Add an action; return 0 when the queue is full. */
static uint8_t schedule(uint32_t at, uint8_t kind, uint8_t arg)
{
    if (queued >= QUEUE_LEN)
        return 0;
    if (!queued || (int32_t)(at - soonest) < 0)
        soonest = at;
    queue[queued].at = at;
    queue[queued].kind = kind;
    queue[queued].arg = arg;
    queue[queued].order = next_order++;
    queued++;
    return 1;
}

/* Return the index of the earliest due action at time t, or 0xFF. */
static uint8_t earliest_due(uint32_t t)
{
    uint8_t best = 0xFF;
    for (uint8_t i = 0; i < queued; i++) {
        if (!reached(t, queue[i].at))
            continue;
        if (best == 0xFF) { best = i; continue; }
        int32_t d = (int32_t)(queue[i].at - queue[best].at);
        if (d < 0 || (d == 0 && (int8_t)(queue[i].order - queue[best].order) < 0))
            best = i;
    }
    return best;
}

static void run_due(uint32_t t)
{
    uint16_t mask = buttons;
    uint8_t i;
    while ((i = earliest_due(t)) != 0xFF) {
        uint8_t kind = queue[i].kind, arg = queue[i].arg;
        queue[i] = queue[--queued];
        switch (kind) {
        case ACT_PRESS: mask |= (uint16_t)1 << arg; break;
        case ACT_RELEASE: mask &= ~((uint16_t)1 << arg); break;
        case ACT_RELEASE_ALL: mask = 0; break;
        case ACT_POWER_ON: write_power(1); break;
        case ACT_POWER_OFF: write_power(0); break;
        case ACT_SYNC_HIGH: PORTC |= _BV(PC1); break;
        case ACT_SYNC_LOW: PORTC &= ~_BV(PC1); break;
        }
        if (kind <= ACT_RELEASE_ALL && mask != buttons)
            write_buttons(mask);
    }
    for (i = 0; i < queued; i++)
        if (!i || (int32_t)(queue[i].at - soonest) < 0)
            soonest = queue[i].at;
}

/* Run the actions that are due, if any: cheap enough to call between any two bytes, so that
 * neither a stream of received bytes nor a reply waiting for room in the transmit ring (a
 * host that sends without waiting for replies) holds up an action (tests/rig/
 * test_link_hostile.py). */
static void poll_due(void)
{
    if (queued) {
        uint32_t t = now_us();
        if (reached(t, soonest))
            run_due(t);
    }
}

/* Cancel every scheduled action; a SYNC pulse in progress ends now, as its cancelled end
 * would leave the line high for good. */
static void cancel_all(void)
{
    queued = 0;
    PORTC &= ~_BV(PC1);
}

static void release_everything(void)
{
    cancel_all();
    write_buttons(0);
}

/* ---- UART: interrupt-driven receive ring, blocking transmit ---- */

static volatile uint8_t rx_buf[128];
static volatile uint8_t rx_head, rx_tail;
static volatile uint8_t rx_lost;    /* bytes dropped on a full ring, not yet counted */

ISR(USART_RX_vect)
{
    uint8_t c = UDR0;
    uint8_t next = (rx_head + 1) & 127;
    if (next != rx_tail) {
        rx_buf[rx_head] = c;
        rx_head = next;
    } else if (rx_lost != 0xFF) {
        rx_lost++;
    }
}

/* Interrupt-driven transmit: replies never hold up the main loop (a 19-byte frame takes
 * 1.65 ms on the line at 115200 baud, longer than the timing we promise). */
static volatile uint8_t tx_buf[128];
static volatile uint8_t tx_head, tx_tail;

ISR(USART_UDRE_vect)
{
    if (tx_tail == tx_head) {
        UCSR0B &= ~_BV(UDRIE0);
        return;
    }
    UDR0 = tx_buf[tx_tail];
    tx_tail = (tx_tail + 1) & 127;
}

static void tx(uint8_t c)
{
    uint8_t next = (tx_head + 1) & 127;
    while (next == tx_tail)
        poll_due();             /* ring full: wait for the interrupt to drain it */
    tx_buf[tx_head] = c;
    tx_head = next;
    UCSR0B |= _BV(UDRIE0);
}

static uint16_t crc16(uint16_t crc, uint8_t b)
{
    crc ^= (uint16_t)b << 8;
    for (uint8_t i = 0; i < 8; i++)
        crc = (crc & 0x8000) ? (uint16_t)((crc << 1) ^ 0x1021) : (uint16_t)(crc << 1);
    return crc;
}

static uint8_t last_reply[32];
static uint8_t last_reply_len;

static void send_frame(uint8_t type, uint8_t seq, const uint8_t *p, uint8_t n)
{
    uint8_t *r = last_reply;
    uint16_t crc = 0xFFFF;
    r[0] = 0xA5; r[1] = 0x5A; r[2] = type; r[3] = seq; r[4] = n;
    for (uint8_t i = 0; i < n; i++) r[5 + i] = p[i];
    for (uint8_t i = 2; i < 5 + n; i++) crc = crc16(crc, r[i]);
    r[5 + n] = crc & 0xFF;
    r[6 + n] = crc >> 8;
    last_reply_len = 7 + n;
    for (uint8_t i = 0; i < last_reply_len; i++) tx(r[i]);
}

static void put32(uint8_t *p, uint32_t v)
{
    p[0] = v; p[1] = v >> 8; p[2] = v >> 16; p[3] = v >> 24;
}
static uint32_t get32(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

/* ---- command handling ---- */

static uint16_t crc_errors;
static uint16_t watchdog_ms = 2000;
static uint8_t watchdog_tripped;
static uint32_t last_frame_us;
static uint8_t last_seq, last_type, have_last;
static uint8_t unhailed = 1;    /* no HELLO since reset: STATUS says so, and a host that said
                                 * hello before learns the box restarted (power, USB, DTR) */

static void ack(uint8_t cmd, uint8_t seq, uint8_t status, uint32_t at)
{
    uint8_t p[6] = {cmd, status};
    put32(p + 2, at);
    send_frame(REP_ACK, seq, p, 6);
}

static void nak(uint8_t cmd, uint8_t seq, uint8_t code)
{
    uint8_t p[2] = {cmd, code};
    send_frame(REP_NAK, seq, p, 2);
}

/* Resolve an at_us field: NOW or a past time runs immediately; returns the ACK status. */
static uint8_t resolve(uint32_t *at, uint32_t t)
{
    if (*at == NOW) { *at = t; return ACK_DONE; }
    if (reached(t, *at + 1)) { *at = t; return ACK_LATE; }
    return ACK_SCHEDULED;
}

static void handle(uint8_t type, uint8_t seq, const uint8_t *p, uint8_t n)
{
    uint32_t t = now_us();
    uint8_t st;
    uint32_t at;
    last_frame_us = t;
    if (type == CMD_HELLO)
        have_last = 0;      /* a new host: never answer its hello from an old session */
    if (have_last && seq == last_seq && type == last_type) {
        for (uint8_t i = 0; i < last_reply_len; i++) tx(last_reply[i]);
        return;
    }
    have_last = 1; last_seq = seq; last_type = type;
    switch (type) {
    case CMD_HELLO: {
        unhailed = 0;
        uint8_t r[12] = {PROTO_VERSION, FW_MAJOR, FW_MINOR, N_BUTTONS};
        put32(r + 4, t);
        r[8] = 'T'; r[9] = 'L'; r[10] = 'B'; r[11] = 'X';
        send_frame(REP_HELLO, seq, r, 12);
        return;
    }
    case CMD_PRESS: {
        if (n != 7) { nak(type, seq, NAK_BAD_LENGTH); return; }
        uint8_t b = p[0];
        if (b >= N_BUTTONS) { nak(type, seq, NAK_BAD_BUTTON); return; }
        uint16_t hold = p[1] | ((uint16_t)p[2] << 8);
        at = get32(p + 3);
        st = resolve(&at, t);
        if (queued + (hold ? 2 : 1) > QUEUE_LEN) { nak(type, seq, NAK_QUEUE_FULL); return; }
        schedule(at, ACT_PRESS, b);
        if (hold)
            schedule(at + (uint32_t)hold * 1000UL, ACT_RELEASE, b);
        run_due(now_us());
        ack(type, seq, st, at);
        return;
    }
    case CMD_RELEASE: {
        if (n != 5) { nak(type, seq, NAK_BAD_LENGTH); return; }
        uint8_t b = p[0];
        if (b >= N_BUTTONS) { nak(type, seq, NAK_BAD_BUTTON); return; }
        at = get32(p + 1);
        st = resolve(&at, t);
        if (!schedule(at, ACT_RELEASE, b)) { nak(type, seq, NAK_QUEUE_FULL); return; }
        run_due(now_us());
        ack(type, seq, st, at);
        return;
    }
    case CMD_RELEASE_ALL:
        if (n != 4) { nak(type, seq, NAK_BAD_LENGTH); return; }
        at = get32(p);
        if (at == NOW)
            cancel_all();       /* "stop now": cancel every scheduled action too */
        st = resolve(&at, t);
        if (!schedule(at, ACT_RELEASE_ALL, 0)) { nak(type, seq, NAK_QUEUE_FULL); return; }
        run_due(now_us());
        ack(type, seq, st, at);
        return;
    case CMD_POWER:
        if (n != 5) { nak(type, seq, NAK_BAD_LENGTH); return; }
        at = get32(p + 1);
        st = resolve(&at, t);
        if (!schedule(at, p[0] ? ACT_POWER_ON : ACT_POWER_OFF, 0)) {
            nak(type, seq, NAK_QUEUE_FULL);
            return;
        }
        run_due(now_us());
        ack(type, seq, st, at);
        return;
    case CMD_SYNC: {
        if (n != 6) { nak(type, seq, NAK_BAD_LENGTH); return; }
        uint16_t width = p[0] | ((uint16_t)p[1] << 8);
        at = get32(p + 2);
        st = resolve(&at, t);
        if (queued + 2 > QUEUE_LEN) { nak(type, seq, NAK_QUEUE_FULL); return; }
        schedule(at, ACT_SYNC_HIGH, 0);
        schedule(at + (width ? width : 1), ACT_SYNC_LOW, 0);
        run_due(now_us());
        ack(type, seq, st, at);
        return;
    }
    case CMD_STATUS: {
        uint8_t r[12];
        put32(r, now_us());
        r[4] = buttons & 0xFF; r[5] = buttons >> 8;
        r[6] = powered;
        r[7] = (watchdog_tripped ? 1 : 0) | (queued ? 2 : 0) | (unhailed ? 4 : 0);
        r[8] = crc_errors & 0xFF; r[9] = crc_errors >> 8;
        r[10] = watchdog_ms & 0xFF; r[11] = watchdog_ms >> 8;
        watchdog_tripped = 0;
        send_frame(REP_STATUS, seq, r, 12);
        return;
    }
    case CMD_WATCHDOG:
        if (n != 2) { nak(type, seq, NAK_BAD_LENGTH); return; }
        watchdog_ms = p[0] | ((uint16_t)p[1] << 8);
        ack(type, seq, ACK_DONE, t);
        return;
    default:
        nak(type, seq, NAK_UNKNOWN);
    }
}

/* Frame parser: hunts for the magic, checks length and CRC. A frame that fails (a bad
 * second magic byte, length or CRC) is dropped from its first byte only and the bytes after it
 * are searched again, as the host's parser does (rig/protocol.py FrameParser): a frame cut
 * short (a host that died mid-write, a byte lost) must not swallow the good frame that
 * follows it (tests/rig/test_link_hostile.py). */
#define MAX_PAYLOAD 33
#define FRAME_GAP_US 20000UL    /* a frame's bytes come back to back (a 40-byte frame takes
                                 * 3.5 ms); one silent this long was abandoned mid-write */
static uint8_t fr[7 + MAX_PAYLOAD];
static uint8_t fr_n;
static uint32_t fr_last_us;     /* when the last byte of the frame in progress came */

/* Return 1 when the fr_n bytes in fr cannot begin a good frame (counting a failed frame). */
static uint8_t frame_failed(void)
{
    if (fr[0] != 0xA5)
        return 1;                       /* not counted: bytes between frames */
    if (fr_n < 2)
        return 0;
    if (fr[1] != 0x5A || (fr_n >= 5 && fr[4] > MAX_PAYLOAD)) {
        crc_errors++;
        return 1;
    }
    return 0;
}

/* Handle the frame in fr once it is whole and good; drop what cannot begin one. */
static void scan(void)
{
    for (;;) {
        if (frame_failed()) {
            uint8_t i = 1;
            while (i < fr_n && fr[i] != 0xA5)
                i++;
            for (uint8_t j = i; j < fr_n; j++)
                fr[j - i] = fr[j];
            fr_n -= i;
            if (!fr_n)
                return;
            continue;
        }
        if (fr_n < 5 || fr_n != 7 + fr[4])
            return;
        uint16_t crc = 0xFFFF;
        for (uint8_t i = 2; i < 5 + fr[4]; i++) crc = crc16(crc, fr[i]);
        uint16_t got = fr[5 + fr[4]] | ((uint16_t)fr[6 + fr[4]] << 8);
        if (crc == got) {
            fr_n = 0;
            handle(fr[2], fr[3], fr + 5, fr[4]);
            return;
        }
        crc_errors++;
        fr[0] = 0;                      /* drop its first byte and search the rest again */
    }
}

static void parse_byte(uint8_t c)
{
    fr[fr_n++] = c;
    fr_last_us = now_us();
    scan();
}

int main(void)
{
    /* INT0/INT1 share PD2/PD3 with keys 0 and 1; they stay disabled, but select edge mode so
     * no low-level trigger is pending (set first: simavr polls low-level triggers every few cycles,
     * which kept the simulated CPU from sleeping). */
    EICRA = _BV(ISC11) | _BV(ISC10) | _BV(ISC01) | _BV(ISC00);
    DDRD |= 0xFC;            /* PD2..PD7 keys */
    DDRB |= 0x3F;            /* PB0..PB5 keys */
    DDRC |= _BV(PC0) | _BV(PC1);
    write_buttons(0);
    write_power(0);

    TCCR1A = 0;
    TCCR1B = _BV(CS11);      /* clk/8: 0.5 us per tick */
    TIMSK1 = _BV(TOIE1);
    TCCR0A = 0;
    TCCR0B = _BV(CS01) | _BV(CS00);   /* clk/64: overflow every 1.024 ms */
    TIMSK0 = _BV(TOIE0);

    UCSR0A = _BV(U2X0);
    UBRR0 = 16;              /* 115200 baud at 16 MHz with U2X (2.1 % error) */
    UCSR0B = _BV(RXEN0) | _BV(TXEN0) | _BV(RXCIE0);
    UCSR0C = _BV(UCSZ01) | _BV(UCSZ00);

    set_sleep_mode(SLEEP_MODE_IDLE);
    sei();
    last_frame_us = now_us();
    for (;;) {
        while (rx_tail != rx_head) {
            uint8_t c = rx_buf[rx_tail];
            rx_tail = (rx_tail + 1) & 127;
            parse_byte(c);
            poll_due();
        }
        if (fr_n && !reached(fr_last_us + FRAME_GAP_US, now_us())) {
            fr[0] = 0;              /* abandoned: drop its first byte, search the rest */
            crc_errors++;
            scan();
        }
        if (rx_lost) {              /* counted with the bad frames: input that was dropped */
            cli();
            crc_errors += rx_lost;
            rx_lost = 0;
            sei();
        }
        uint32_t t = now_us();
        run_due(t);
        if (watchdog_ms && (buttons || queued)
                && !reached(last_frame_us + (uint32_t)watchdog_ms * 1000UL, t + 1)) {
            release_everything();
            watchdog_tripped = 1;
        }
        if (watchdog_ms && !reached(last_frame_us + (uint32_t)watchdog_ms * 1000UL, t))
            last_frame_us = t - (uint32_t)watchdog_ms * 1000UL;   /* keep the difference in range */
        /* An action due within the next wake-up tick is waited for by spinning (exact to a
         * few microseconds); otherwise sleep until the Timer0 tick or a received byte. */
        if (queued && (int32_t)(soonest - now_us()) < 1100) {
            uint32_t due = soonest;
            while (!reached(now_us(), due))
                ;               /* tight wait: received bytes queue in the RX ring meanwhile */
            /* act now, before those bytes: a command handled first (its reply queued) would
             * make the action a few hundred microseconds late */
            run_due(now_us());
            continue;
        }
        cli();
        if (rx_tail == rx_head) {
            sleep_enable();
            sei();
            sleep_cpu();
            sleep_disable();
        }
        sei();
    }
}
