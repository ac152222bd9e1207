// A run.js bundle written by hand for the acceptance tests: it answers
// js/echo, reads its root JSON file both ways, and on js/arm logs "armed"
// then does the fault its params name from a 10 ms timer.
import { createInterface } from "node:readline";
import { readFileSync } from "node:fs";

const arg = (p) => (Array.isArray(p) ? p[0] : p);
const send = (m) => process.stdout.write(JSON.stringify(m) + "\n");
const log = (message) => send({ jsonrpc: "2.0", method: "log", params: { level: "info", message } });
let kept = [];

// Each frame of recurse holds 256 locals (kilobytes of the engine's 1 MB C
// stack), so the stack overflows within about 250 calls: a narrow
// recursion needs thousands, which on a loaded machine ran past the turn
// limit before the overflow, and the test is about the overflow.
function recurse(n) {
  let v0 = n, v1 = n, v2 = n, v3 = n, v4 = n, v5 = n, v6 = n, v7 = n, v8 = n, v9 = n, v10 = n, v11 = n, v12 = n, v13 = n, v14 = n, v15 = n,
    v16 = n, v17 = n, v18 = n, v19 = n, v20 = n, v21 = n, v22 = n, v23 = n, v24 = n, v25 = n, v26 = n, v27 = n, v28 = n, v29 = n, v30 = n, v31 = n,
    v32 = n, v33 = n, v34 = n, v35 = n, v36 = n, v37 = n, v38 = n, v39 = n, v40 = n, v41 = n, v42 = n, v43 = n, v44 = n, v45 = n, v46 = n, v47 = n,
    v48 = n, v49 = n, v50 = n, v51 = n, v52 = n, v53 = n, v54 = n, v55 = n, v56 = n, v57 = n, v58 = n, v59 = n, v60 = n, v61 = n, v62 = n, v63 = n,
    v64 = n, v65 = n, v66 = n, v67 = n, v68 = n, v69 = n, v70 = n, v71 = n, v72 = n, v73 = n, v74 = n, v75 = n, v76 = n, v77 = n, v78 = n, v79 = n,
    v80 = n, v81 = n, v82 = n, v83 = n, v84 = n, v85 = n, v86 = n, v87 = n, v88 = n, v89 = n, v90 = n, v91 = n, v92 = n, v93 = n, v94 = n, v95 = n,
    v96 = n, v97 = n, v98 = n, v99 = n, v100 = n, v101 = n, v102 = n, v103 = n, v104 = n, v105 = n, v106 = n, v107 = n, v108 = n, v109 = n, v110 = n, v111 = n,
    v112 = n, v113 = n, v114 = n, v115 = n, v116 = n, v117 = n, v118 = n, v119 = n, v120 = n, v121 = n, v122 = n, v123 = n, v124 = n, v125 = n, v126 = n, v127 = n,
    v128 = n, v129 = n, v130 = n, v131 = n, v132 = n, v133 = n, v134 = n, v135 = n, v136 = n, v137 = n, v138 = n, v139 = n, v140 = n, v141 = n, v142 = n, v143 = n,
    v144 = n, v145 = n, v146 = n, v147 = n, v148 = n, v149 = n, v150 = n, v151 = n, v152 = n, v153 = n, v154 = n, v155 = n, v156 = n, v157 = n, v158 = n, v159 = n,
    v160 = n, v161 = n, v162 = n, v163 = n, v164 = n, v165 = n, v166 = n, v167 = n, v168 = n, v169 = n, v170 = n, v171 = n, v172 = n, v173 = n, v174 = n, v175 = n,
    v176 = n, v177 = n, v178 = n, v179 = n, v180 = n, v181 = n, v182 = n, v183 = n, v184 = n, v185 = n, v186 = n, v187 = n, v188 = n, v189 = n, v190 = n, v191 = n,
    v192 = n, v193 = n, v194 = n, v195 = n, v196 = n, v197 = n, v198 = n, v199 = n, v200 = n, v201 = n, v202 = n, v203 = n, v204 = n, v205 = n, v206 = n, v207 = n,
    v208 = n, v209 = n, v210 = n, v211 = n, v212 = n, v213 = n, v214 = n, v215 = n, v216 = n, v217 = n, v218 = n, v219 = n, v220 = n, v221 = n, v222 = n, v223 = n,
    v224 = n, v225 = n, v226 = n, v227 = n, v228 = n, v229 = n, v230 = n, v231 = n, v232 = n, v233 = n, v234 = n, v235 = n, v236 = n, v237 = n, v238 = n, v239 = n,
    v240 = n, v241 = n, v242 = n, v243 = n, v244 = n, v245 = n, v246 = n, v247 = n, v248 = n, v249 = n, v250 = n, v251 = n, v252 = n, v253 = n, v254 = n, v255 = n;
  return recurse(n + 1) + v255;
}

const faults = {
  loop: () => {
    for (;;) {}
  },
  regex: () => /^(a+)+$/.test("a".repeat(40) + "!"),
  recurse: () => recurse(0),
  grow: () => {
    // One buffer past the 64 MB: the limit acts at once, however loaded
    // the machine.
    for (;;) kept.push(new Uint8Array(96 << 20));
  },
  throw: () => {
    throw new Error("boom");
  },
};

const methods = {
  "js/echo": (p) => p,
  "js/read": () => ({
    url: JSON.parse(readFileSync(new URL("../rules.json", globalThis._importMeta_.url), "utf8")),
    bare: JSON.parse(readFileSync("rules.json", "utf8")),
  }),
  "js/arm": (p) => {
    const what = arg(p);
    log("armed " + what);
    setTimeout(faults[what], 10);
    return null;
  },
};

// Requests to the host, by id, waiting for their answer.
const waiting = new Map();
let nextId = 0;
function ask(method, params, then) {
  const id = "h" + ++nextId;
  waiting.set(id, then);
  send({ jsonrpc: "2.0", id, method, params });
}

// Methods answered once the host answered a request of theirs.
const later = {
  "js/secret": (p, done) =>
    ask("secrets/get", { key: "token" }, (a) => {
      log("the token is " + a.result);
      process.stderr.write("stderr says the token is " + a.result + "\n");
      done(a.result !== null);
    }),
  "js/readfile": (p, done) => ask("files/read", { path: arg(p) }, (a) => done(a.result ?? a.error)),
};

createInterface({ input: process.stdin }).on("line", (line) => {
  const m = JSON.parse(line);
  if (m.method === undefined && waiting.has(m.id)) {
    const then = waiting.get(m.id);
    waiting.delete(m.id);
    return then(m);
  }
  if (m.id === undefined || m.method === undefined) return;
  if (later[m.method]) return later[m.method](m.params, (r) => send({ jsonrpc: "2.0", id: m.id, result: r }));
  if (m.method === "initialize") return send({ jsonrpc: "2.0", id: m.id, result: { protocolVersion: 1, capabilities: {} } });
  if (m.method === "shutdown") {
    send({ jsonrpc: "2.0", id: m.id, result: null });
    return process.exit(0);
  }
  const f = methods[m.method];
  if (!f) return send({ jsonrpc: "2.0", id: m.id, error: { code: -32601, message: "Method not found" } });
  send({ jsonrpc: "2.0", id: m.id, result: f(m.params) ?? null });
});
