/*
 * boxsim: run the button-box firmware (an AVR ELF) on a simulated ATmega328P at 16 MHz in simavr,
 * bridge its UART0 to a pseudo-terminal and report its output pins, under the control of the
 * Python side (rig/simbox.py) which keeps simulated AVR time in step with the virtual tower.
 *
 * Protocol on stdin/stdout (one line each):
 *   out  "PTY <path>"                 once at start: open this like /dev/ttyACM0
 *   in   "R <cycle>"                  run the AVR until its cycle counter reaches <cycle>
 *   out  "P <cycle> <port> <hex>"     an output port (B, C or D) changed to <hex> at <cycle>
 *   out  "T <cycle>"                  the run is done; the AVR is now at <cycle>
 *   in   "I <k>"                      flip bit 4 of the k-th next byte host -> AVR (line noise)
 *   in   "O <k>"                      flip bit 4 of the k-th next byte AVR -> host
 *   in   "C"                          close the pseudo-terminal (the box is unplugged)
 *   in   "X"                          reset the AVR (a power cycle: the firmware starts afresh,
 *                                     the pty stays open, bytes on their way are kept)
 *   in   "Q"                          quit
 * Host bytes are read from the pty every 2000 cycles (125 us) and fed to the UART while it
 * signals XON, so simavr paces reception at the baud rate.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include <sim_avr.h>
#include <sim_elf.h>
#include <sim_irq.h>
#include <sim_cycle_timers.h>
#include <avr_ioport.h>
#include <avr_uart.h>

#define POLL_CYCLES 2000

static avr_t *avr;
static int pty = -1;
static int xon = 1;
static uint8_t inq[4096];
static size_t inq_head, inq_tail;
static long corrupt_in = 0, corrupt_out = 0;
static avr_irq_t *uart_in;
static int last_port[3] = {-1, -1, -1};

static void no_sleep(avr_t *a, avr_cycle_count_t how_long) { (void)a; (void)how_long; }

static void on_uart_out(struct avr_irq_t *irq, uint32_t value, void *param)
{
    (void)irq; (void)param;
    uint8_t b = (uint8_t)value;
    if (corrupt_out > 0 && --corrupt_out == 0)
        b ^= 0x10;
    if (pty >= 0) {
        ssize_t n = write(pty, &b, 1);
        (void)n;   /* a full pty drops the byte, like a USB-serial bridge with no reader */
    }
}

static void on_xon(struct avr_irq_t *irq, uint32_t value, void *param)
{
    (void)irq; (void)value; (void)param;
    xon = 1;
}

static void on_xoff(struct avr_irq_t *irq, uint32_t value, void *param)
{
    (void)irq; (void)value; (void)param;
    xon = 0;
}

static void on_port(struct avr_irq_t *irq, uint32_t value, void *param)
{
    (void)irq;
    int i = (int)(intptr_t)param;
    if ((int)(value & 0xFF) == last_port[i])
        return;
    last_port[i] = value & 0xFF;
    printf("P %llu %c %02x\n", (unsigned long long)avr->cycle, "BCD"[i], value & 0xFF);
}

static void feed_uart(void)
{
    while (xon && inq_tail != inq_head) {
        uint8_t b = inq[inq_tail];
        inq_tail = (inq_tail + 1) % sizeof(inq);
        if (corrupt_in > 0 && --corrupt_in == 0)
            b ^= 0x10;
        avr_raise_irq(uart_in, b);
    }
}

static avr_cycle_count_t poll_pty(avr_t *a, avr_cycle_count_t when, void *param)
{
    (void)a; (void)param;
    if (pty >= 0) {
        uint8_t buf[256];
        size_t room = (inq_tail + sizeof(inq) - inq_head - 1) % sizeof(inq);
        if (room > sizeof(buf)) room = sizeof(buf);
        ssize_t n = room ? read(pty, buf, room) : 0;
        for (ssize_t i = 0; i < n; i++) {
            inq[inq_head] = buf[i];
            inq_head = (inq_head + 1) % sizeof(inq);
        }
    }
    feed_uart();
    return when + POLL_CYCLES;
}

static void open_pty(void)
{
    pty = posix_openpt(O_RDWR | O_NOCTTY);
    if (pty < 0 || grantpt(pty) < 0 || unlockpt(pty) < 0) {
        fprintf(stderr, "boxsim: cannot create a pseudo-terminal: %s\n", strerror(errno));
        exit(2);
    }
    struct termios tio;
    if (tcgetattr(pty, &tio) == 0) {
        cfmakeraw(&tio);
        tcsetattr(pty, TCSANOW, &tio);
    }
    fcntl(pty, F_SETFL, fcntl(pty, F_GETFL) | O_NONBLOCK);
    printf("PTY %s\n", ptsname(pty));
    fflush(stdout);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: boxsim FIRMWARE.elf\n");
        return 2;
    }
    elf_firmware_t fw;
    memset(&fw, 0, sizeof(fw));
    if (elf_read_firmware(argv[1], &fw) != 0) {
        fprintf(stderr, "boxsim: %s: not an AVR ELF file\n", argv[1]);
        return 2;
    }
    avr = avr_make_mcu_by_name("atmega328p");
    if (!avr) {
        fprintf(stderr, "boxsim: simavr has no atmega328p core\n");
        return 2;
    }
    avr_init(avr);
    avr->frequency = 16000000;
    avr->log = 0;
    avr_load_firmware(avr, &fw);
    avr->frequency = 16000000;
    avr->sleep = no_sleep;

    uart_in = avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_INPUT);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_OUTPUT),
                            on_uart_out, NULL);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_OUT_XON),
                            on_xon, NULL);
    avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_OUT_XOFF),
                            on_xoff, NULL);
    uint32_t flags = 0;
    avr_ioctl(avr, AVR_IOCTL_UART_GET_FLAGS('0'), &flags);
    flags &= ~AVR_UART_FLAG_STDIO;
    avr_ioctl(avr, AVR_IOCTL_UART_SET_FLAGS('0'), &flags);
    const char ports[3] = {'B', 'C', 'D'};
    for (int i = 0; i < 3; i++)
        avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_IOPORT_GETIRQ(ports[i]),
                                              IOPORT_IRQ_PIN_ALL),
                                on_port, (void *)(intptr_t)i);
    open_pty();
    avr_cycle_timer_register(avr, POLL_CYCLES, poll_pty, NULL);

    char line[128];
    while (fgets(line, sizeof(line), stdin)) {
        if (line[0] == 'R') {
            unsigned long long until = strtoull(line + 1, NULL, 10);
            while (avr->cycle < until) {
                int st = avr_run(avr);
                if (st == cpu_Done || st == cpu_Crashed) {
                    printf("E firmware stopped (state %d) at cycle %llu\n", st,
                           (unsigned long long)avr->cycle);
                    break;
                }
            }
            printf("T %llu\n", (unsigned long long)avr->cycle);
            fflush(stdout);
        } else if (line[0] == 'I') {
            corrupt_in = strtol(line + 1, NULL, 10);
        } else if (line[0] == 'O') {
            corrupt_out = strtol(line + 1, NULL, 10);
        } else if (line[0] == 'C') {
            if (pty >= 0)
                close(pty);
            pty = -1;
        } else if (line[0] == 'X') {
            avr_reset(avr);                 /* clears the cycle timers too */
            avr_cycle_timer_register(avr, POLL_CYCLES, poll_pty, NULL);
        } else if (line[0] == 'Q') {
            break;
        }
    }
    if (pty >= 0)
        close(pty);
    return 0;
}
