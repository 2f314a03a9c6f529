// The tower page of `towerlab serve` (rig/web): plain JavaScript, no framework, no build step,
// nothing fetched from outside.
//
// The page knows only the messages of rig/web/server.py: it does not know which tower it
// shows. What it shows at play time P is the fold of the events with t <= P (display text,
// lamps, motor, reel card, keys down); P runs with the wall clock (pace "wall") or moves only
// when the server says so (pace "manual"), and never past the horizon the server sent, so
// every event is drawn at the first animation frame at or after its time. Tones are scheduled
// on Web Audio at their time. `window.towerlab` lets scripts and tests read what is shown.
//
// Sound starts only after the user has clicked, touched or pressed a key on the page (the
// browsers' autoplay policy: an AudioContext made before that stays suspended and the console
// warns); until then the sound button says how to turn it on.
(function () {
  "use strict";
  var SEGMENTS = {
    a: "14,5 46,5 50,9 46,13 14,13 10,9", b: "51,12 55,16 55,44 51,48 47,44 47,16",
    c: "51,52 55,56 55,84 51,88 47,84 47,56", d: "14,87 46,87 50,91 46,95 14,95 10,91",
    e: "9,52 13,56 13,84 9,88 5,84 5,56", f: "9,12 13,16 13,44 9,48 5,44 5,16",
    g: "14,46 46,46 50,50 46,54 14,54 10,50"
  };
  var LAMPS = ["upper", "middle", "lower"];
  var AHEAD_S = 0.25;     // tones are scheduled this far ahead of the play time
  var RETRY_MS = [1000, 8000];  // a lost server is tried again after 1 s, then 2, 4, 8, 8 ...
  var $ = function (id) { return document.getElementById(id); };

  var T = window.towerlab = {
    ready: false, hello: null, events: [], horizon: 0, story: [], drawn: {}, frames: [],
    tones: [], errors: [], time: 0, shown: null, audio: "none", late: 0, connected: false,
    send: function (msg) { send(msg); },
    advance: function (s) { send({kind: "advance", s: s}); },
    seek: function (t) { seekTo(t); }
  };
  var ws = null;
  var clock = {t: 0, at: performance.now(), playing: false};
  var review = null;          // a live tower's past time the timeline was dragged to
  var state = null, applied = 0, shownAt = -1;
  var toneNext = 0, audio = null, master = null, muted = false;
  var rows = [], currentRow = null, currentStory = null, dragging = false;

  function send(msg) {
    if (ws && ws.readyState === 1) {
      // what the server said of an earlier request is old news now (it says again if need be)
      if (msg.kind !== "release") { $("error").textContent = ""; }
      ws.send(JSON.stringify(msg));
    }
  }

  // ---- the fold: what the tower shows after some events --------------------------------
  function blank() {
    return {text: "  ", lamps: {upper: 0, middle: 0, lower: 0}, motor: 0, card: null,
            down: {}, power: 1};
  }
  function apply(s, e) {
    switch (e.type) {
      case "display": s.text = e.text; break;
      case "lamp": s.lamps[e.lamp] = e.on; break;
      case "motor": s.motor = e.on; break;
      case "reel": s.card = e.card_pos; break;
      case "button":
        if (e.action === "press") { s.down[e.button] = 1; } else { delete s.down[e.button]; }
        break;
      case "power":
        s.power = e.on;
        if (!e.on) { s.text = "  "; s.lamps = {upper: 0, middle: 0, lower: 0}; s.motor = 0; }
        break;
    }
  }
  T.fold = function (t) {
    var s = blank();
    for (var i = 0; i < T.events.length && T.events[i].t <= t + 1e-9; i++) { apply(s, T.events[i]); }
    return s;
  };
  function picture(lamp, card) {
    if (card === null || card === undefined) { return "?"; }
    return T.hello.cards[lamp][card] || "blank";
  }

  // ---- drawing -----------------------------------------------------------------------------
  function buildDigits() {
    ["digit0", "digit1"].forEach(function (id) {
      var svg = $(id);
      Object.keys(SEGMENTS).forEach(function (seg) {
        var p = document.createElementNS("http://www.w3.org/2000/svg", "polygon");
        p.setAttribute("points", SEGMENTS[seg]);
        p.setAttribute("data-seg", seg);
        svg.appendChild(p);
      });
    });
  }
  function buildKeypad(h) {
    var pad = $("keypad"), keyOf = {};
    Object.keys(h.keymap).forEach(function (k) { keyOf[h.keymap[k]] = k; });
    h.buttons.forEach(function (b) {
      var el = document.createElement("button");
      el.type = "button";
      el.setAttribute("data-button", b);
      el.appendChild(document.createTextNode(b));
      if (keyOf[b]) {
        var k = document.createElement("span");
        k.className = "key";
        k.textContent = keyOf[b].toUpperCase();
        el.appendChild(k);
      }
      el.addEventListener("pointerdown", function (ev) {
        ev.preventDefault();
        if (el.setPointerCapture) { try { el.setPointerCapture(ev.pointerId); } catch (x) {} }
        press(b);
      });
      ["pointerup", "pointercancel", "lostpointercapture"].forEach(function (name) {
        el.addEventListener(name, function () { release(b); });
      });
      el.addEventListener("click", function (ev) {
        // Enter or Space on the focused key (a click without a pointer): one press
        if (ev.detail === 0) { press(b); release(b); }
      });
      pad.appendChild(el);
    });
    if (!h.live) { pad.classList.add("disabled"); }
  }
  var held = {};
  function press(b) {
    unlockAudio();
    if (T.hello && !T.hello.live) {
      $("error").textContent = "A recording takes no keys (it replays its own): drag the " +
        "timeline, or click an event or a story entry, to see another moment.";
      return;
    }
    if (!T.hello || !T.connected || held[b]) { return; }
    held[b] = true;
    send({kind: "press", button: b});
  }
  function release(b) {
    if (!held[b]) { return; }
    delete held[b];
    send({kind: "release", button: b});
  }
  function buildCards() {
    for (var i = 0; i < 8; i++) {
      var li = document.createElement("li");
      li.textContent = String(i);
      li.setAttribute("data-card", String(i));
      $("cards").appendChild(li);
    }
  }
  function describe(e) {
    switch (e.type) {
      case "display": return "display '" + e.text + "'";
      case "lamp": return "lamp " + e.lamp + " " + (e.on ? "on" : "off");
      case "motor": return "motor " + (e.on ? "on" : "off");
      case "reel": return "reel card " + e.card_pos;
      case "tone":
        return (e.freq_hz === null ? "click" : "tone " + e.freq_hz + " Hz" +
                (e.note ? " " + e.note : "")) + ", " + (e.dur_s * 1000).toFixed(1) + " ms";
      case "button": return e.button + " " + e.action;
      case "power": return "power " + (e.on ? "on" : "off");
      default: return e.type;
    }
  }
  function addRows(events, from) {
    var body = $("events").tBodies[0], frag = document.createDocumentFragment();
    for (var i = 0; i < events.length; i++) {
      var e = events[i], tr = document.createElement("tr");
      tr.setAttribute("data-t", String(e.t));
      tr.setAttribute("data-type", e.type);
      tr.setAttribute("data-i", String(from + i));
      tr.innerHTML = "<td>" + e.t.toFixed(3) + "</td><td>" + e.type + "</td><td></td>";
      tr.lastChild.textContent = describe(e);
      tr.addEventListener("click", (function (t) { return function () { seekTo(t); }; })(e.t));
      frag.appendChild(tr);
      rows.push(tr);
    }
    body.appendChild(frag);
  }
  function draw(s, t) {
    var text = s.text;
    $("display").setAttribute("data-text", text);
    for (var d = 0; d < 2; d++) {
      var segs = T.hello.glyphs[text.charAt(d)] || "";
      Array.prototype.forEach.call($("digit" + d).childNodes, function (p) {
        p.classList.toggle("on", segs.indexOf(p.getAttribute("data-seg")) >= 0);
      });
    }
    var pictures = {};
    LAMPS.forEach(function (lamp) {
      var w = $("window-" + lamp), on = !!s.lamps[lamp];
      pictures[lamp] = on ? picture(lamp, s.card) : "";
      w.classList.toggle("lit", on);
      w.setAttribute("data-lit", on ? "1" : "0");
      w.setAttribute("data-picture", pictures[lamp]);
      w.querySelector(".picture").textContent = pictures[lamp];
    });
    Array.prototype.forEach.call($("cards").childNodes, function (li) {
      li.classList.toggle("front", s.card !== null && li.getAttribute("data-card") === String(s.card));
    });
    $("reel").setAttribute("data-card", s.card === null ? "" : String(s.card));
    $("motor").classList.toggle("turning", !!s.motor);
    Array.prototype.forEach.call($("keypad").childNodes, function (el) {
      el.classList.toggle("down", !!s.down[el.getAttribute("data-button")]);
    });
    T.shown = {t: t, text: text, lamps: {upper: s.lamps.upper, middle: s.lamps.middle,
               lower: s.lamps.lower}, card: s.card, motor: s.motor, pictures: pictures};
  }
  function follow(t) {
    // the events table and the story follow the play time
    var lo = 0, hi = rows.length - 1, best = -1;
    while (lo <= hi) {
      var mid = (lo + hi) >> 1;
      if (T.events[mid].t <= t + 1e-9) { best = mid; lo = mid + 1; } else { hi = mid - 1; }
    }
    var row = best >= 0 ? rows[best] : null;
    if (row !== currentRow) {
      if (currentRow) { currentRow.classList.remove("current"); }
      currentRow = row;
      if (row) {
        row.classList.add("current");
        var box = $("scroll");
        box.scrollTop = Math.max(0, row.offsetTop - box.clientHeight / 2);
      }
    }
    var items = $("story").childNodes, cur = null;
    for (var i = 0; i < items.length; i++) {
      if (parseFloat(items[i].getAttribute("data-t")) <= t + 1e-9) { cur = items[i]; }
    }
    if (cur !== currentStory) {
      if (currentStory) { currentStory.classList.remove("current"); }
      currentStory = cur;
      if (cur) { cur.classList.add("current"); }
    }
  }
  function drawStory(entries) {
    var ol = $("story");
    ol.textContent = "";
    currentStory = null;
    entries.forEach(function (e) {
      var li = document.createElement("li");
      li.setAttribute("data-t", String(e.t));
      var span = document.createElement("span");
      span.className = "t";
      span.textContent = e.t.toFixed(1) + " s ";
      li.appendChild(span);
      var b = document.createElement("b");
      b.textContent = (e.player ? "player " + e.player + ": " : "") + e.action;
      li.appendChild(b);
      if (e.what) { li.appendChild(document.createTextNode(" " + e.what)); }
      li.addEventListener("click", function () { seekTo(e.t); });
      ol.appendChild(li);
    });
  }

  // ---- time --------------------------------------------------------------------------------
  function playTime() {
    if (review !== null) { return review; }
    var t = clock.t;
    if (clock.playing && T.hello && T.hello.pace === "wall") {
      t += (performance.now() - clock.at) / 1000;
    }
    if (T.hello && T.hello.length_s !== null) { t = Math.min(t, T.hello.length_s); }
    return Math.min(t, T.horizon);
  }
  function seekTo(t) {
    if (!T.hello) { return; }
    if (T.hello.seekable) {
      clock = {t: t, at: performance.now(), playing: clock.playing};
      send({kind: "seek", t: t});
    } else {
      review = t >= T.horizon - 0.02 ? null : t;
    }
    skipTones(t);
  }
  function skipTones(t) {
    toneNext = 0;
    while (toneNext < T.events.length && T.events[toneNext].t < t - 1e-9) { toneNext++; }
  }

  // ---- sound -------------------------------------------------------------------------------
  function activated() {
    // whether the user has interacted with the page (where the browser cannot say: yes)
    var ua = navigator.userActivation;
    return !ua || ua.hasBeenActive;
  }
  function unlockAudio() {
    // called from the user's gestures only (the module comment)
    if (!activated()) { return; }
    if (audio === null) {
      var Ctx = window.AudioContext || window.webkitAudioContext;
      if (!Ctx) { T.audio = "unavailable"; soundLabel(); return; }
      audio = new Ctx();
      master = audio.createGain();
      master.gain.value = muted ? 0 : 1;
      master.connect(audio.destination);
      audio.onstatechange = function () { T.audio = audio.state; soundLabel(); };
    }
    if (audio.state === "suspended" && audio.resume) { audio.resume().catch(function () {}); }
    T.audio = audio.state;
    soundLabel();
  }
  function soundLabel() {
    var b = $("sound"), on = audio !== null && audio.state === "running";
    b.disabled = T.audio === "unavailable";
    b.textContent = T.audio === "unavailable" ? "no sound in this browser" :
      !on ? "sound is off: click here (or any key) to hear the tower" :
      muted ? "sound muted: click to unmute" : "sound on: click to mute";
    b.setAttribute("data-sound", T.audio === "unavailable" ? "unavailable" :
                   !on ? "off" : muted ? "muted" : "on");
  }
  function scheduleTones(t) {
    if (review !== null) { return; }
    while (toneNext < T.events.length && T.events[toneNext].t <= t + AHEAD_S) {
      var e = T.events[toneNext++];
      if (e.type !== "tone") { continue; }
      if (audio === null) { continue; }
      tone(e, audio.currentTime + Math.max(0, e.t - t), e.dur_s);
    }
  }
  function tone(e, when, seconds) {
    // a square wave at the tone's pitch (a click: a 1 kHz blip) from ``when`` (audio time)
    var dur = Math.max(seconds, 0.002);
    var osc = audio.createOscillator(), gain = audio.createGain();
    osc.type = "square";
    osc.frequency.value = e.freq_hz === null ? 1000 : e.freq_hz;
    gain.gain.value = 0.08;
    osc.connect(gain);
    gain.connect(master);
    osc.start(when);
    osc.stop(when + dur);
    T.tones.push({t: e.t, freq: osc.frequency.value, dur: dur, when: when,
                  click: e.freq_hz === null, state: audio.state});
  }

  // ---- the frame loop ------------------------------------------------------------------------
  var lastFrame = null;
  function frame() {
    if (T.hello) {
      var t = playTime();
      var refold = state === null || t < shownAt - 1e-9;
      if (refold) { state = blank(); applied = 0; }
      var forward = !refold && shownAt >= 0 && t >= shownAt && review === null;
      while (applied < T.events.length && T.events[applied].t <= t + 1e-9) {
        apply(state, T.events[applied]);
        if (forward && !(applied in T.drawn)) {
          T.drawn[applied] = {t: T.events[applied].t, at: t, since: shownAt};
        }
        applied++;
      }
      draw(state, t);
      follow(t);
      scheduleTones(t);
      if (lastFrame !== null && T.frames.length < 100000) {
        T.frames.push([performance.now() - lastFrame, t - shownAt]);
      }
      lastFrame = performance.now();
      shownAt = t;
      T.time = t;
      $("time").textContent = t.toFixed(2) + " s";
      if (!dragging) {
        var max = T.hello.length_s !== null ? T.hello.length_s : Math.max(T.horizon, 0.001);
        $("timeline").max = String(max);
        $("timeline").value = String(t);
      }
      $("mode").textContent = !T.connected ? "disconnected" :
        review !== null ? "looking back (live: back to now)" :
        (T.hello.live ? (clock.playing || T.hello.pace === "manual" ? "live" : "paused") :
         (clock.playing ? "playing" : "paused"));
    }
    window.requestAnimationFrame(frame);
  }

  // ---- the connection ------------------------------------------------------------------------
  function receive(msg) {
    switch (msg.kind) {
      case "hello":
        T.hello = msg;
        $("title").textContent = msg.title;
        $("about").textContent = msg.about;
        document.title = "TowerLab: " + msg.title;
        if (!$("keypad").childNodes.length) { buildKeypad(msg); }
        $("keypad").classList.toggle("disabled", !msg.live);
        offline(false);
        review = null;
        $("length").textContent = msg.length_s !== null ? "of " + msg.length_s.toFixed(1) + " s" : "";
        $("live").style.display = msg.live ? "" : "none";
        $("play").style.display = msg.pace === "manual" && msg.live ? "none" : "";
        T.events = [];
        rows = [];
        $("events").tBodies[0].textContent = "";
        receive(msg.clock);       // first: the reset skips the tones before its time
        receive({kind: "reset", events: msg.events, horizon: msg.horizon});
        drawStory(msg.story);
        T.story = msg.story;
        T.ready = true;
        break;
      case "events":
        var last = T.events.length ? T.events[T.events.length - 1].t : -Infinity;
        if (msg.events.some(function (e) { return e.t < last; })) {
          T.horizon = msg.horizon;
          lateEvents(msg.events);
          break;
        }
        addRows(msg.events, T.events.length);
        Array.prototype.push.apply(T.events, msg.events);
        T.horizon = msg.horizon;
        break;
      case "reset":
        T.events = msg.events.slice();
        rows = [];
        $("events").tBodies[0].textContent = "";
        addRows(T.events, 0);
        T.horizon = msg.horizon;
        state = null;
        skipTones(playTime());
        break;
      case "clock":
        clock = {t: msg.t, at: performance.now(), playing: msg.playing};
        $("play").textContent = msg.playing ? "pause" : "play";
        break;
      case "story":
        T.story = msg.entries;
        drawStory(msg.entries);
        break;
      case "error":
        T.errors.push(msg.message);
        $("error").textContent = msg.message;
        break;
    }
  }
  function lateEvents(events) {
    // events that came after later ones (a long note is known when it ends): put them in
    // their place; a note still sounding plays what is left of it
    var t = playTime();
    events.forEach(function (e) {
      if (e.type === "tone" && e.t < t && e.t + e.dur_s > t && review === null) {
        if (audio !== null) { tone(e, audio.currentTime, e.t + e.dur_s - t); }
      }
    });
    T.late += events.length;
    var all = T.events.concat(events).map(function (e, i) { return [e, i]; });
    all.sort(function (a, b) { return a[0].t - b[0].t || a[1] - b[1]; });
    receive({kind: "reset", events: all.map(function (p) { return p[0]; }), horizon: T.horizon});
  }
  var retryMs = RETRY_MS[0];
  function connect() {
    ws = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/ws");
    ws.onopen = function () { retryMs = RETRY_MS[0]; };
    ws.onmessage = function (ev) { receive(JSON.parse(ev.data)); };
    ws.onclose = function () {
      // the server stopped (or never answered): say so and try again, less often each time
      // (each try the server does not answer is a network error in the browser's console)
      ws = null;
      offline(true);
      window.setTimeout(connect, retryMs);
      retryMs = Math.min(2 * retryMs, RETRY_MS[1]);
    };
  }
  function offline(yes) {
    T.connected = !yes;
    document.body.classList.toggle("offline", yes);
    if (yes) {
      held = {};
      $("error").textContent = (T.ready ? "The server stopped" : "The server does not answer") +
        " (towerlab serve is not running, or its window was closed). Start it again: " +
        "this page reconnects by itself.";
    } else {
      $("error").textContent = "";
    }
  }

  // ---- controls ------------------------------------------------------------------------------
  function keyButton(ev) {
    if (!T.hello || ev.ctrlKey || ev.metaKey || ev.altKey) { return null; }
    return T.hello.keymap[ev.key.toLowerCase()] || null;
  }
  document.addEventListener("keydown", function (ev) {
    var b = keyButton(ev);
    if (b === null || ev.target.tagName === "INPUT") { return; }
    ev.preventDefault();
    if (!ev.repeat) { press(b); }
  });
  document.addEventListener("keyup", function (ev) {
    var b = keyButton(ev);
    if (b !== null) { release(b); }
  });
  // a key held while the window loses the focus never sees its keyup: let go of them all
  function releaseAll() { Object.keys(held).forEach(release); }
  window.addEventListener("blur", releaseAll);
  document.addEventListener("visibilitychange", function () {
    if (document.hidden) { releaseAll(); }
  });
  $("play").addEventListener("click", function () {
    unlockAudio();
    send({kind: "play", playing: !clock.playing});
  });
  $("live").addEventListener("click", function () { review = null; skipTones(playTime()); });
  $("sound").addEventListener("click", function () {
    if (audio !== null && audio.state === "running") {
      muted = !muted;
      master.gain.value = muted ? 0 : 1;
    }
    unlockAudio();
    soundLabel();
  });
  // any click or key on the page starts the sound (the browser allows it from then on)
  ["pointerup", "keydown"].forEach(function (name) {
    document.addEventListener(name, function (ev) {
      // (the sound button's own click decides there)
      if (audio === null && ev.target !== $("sound")) { unlockAudio(); }
    });
  });
  var line = $("timeline");
  line.addEventListener("pointerdown", function () { dragging = true; });
  line.addEventListener("pointerup", function () { dragging = false; });
  line.addEventListener("input", function () { seekTo(parseFloat(line.value)); });
  line.addEventListener("change", function () { dragging = false; seekTo(parseFloat(line.value)); });

  buildDigits();
  buildCards();
  soundLabel();
  connect();
  window.requestAnimationFrame(frame);
})();
