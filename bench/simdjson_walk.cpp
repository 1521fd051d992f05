// The anchor for the JSON scanner: simdjson's on-demand API walking a
// trace's traceEvents and reading the fields tracediff reads (name, cat, ts,
// dur, args.stream, args.correlation), warm: the file is loaded into memory
// first (simdjson needs the whole padded document), one walk warms the
// parser, then the median of 5 walks is printed.
//
//   simdjson_walk FILE      prints "simdjson BYTES SECONDS EVENTS CHECKSUM"
//
// Built only by the bench target (g++, -lsimdjson); plain JSON only. Unlike
// tracediff, simdjson on-demand does not fully validate values it skips.
#include <simdjson.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string_view>
#include <vector>

using namespace simdjson;

struct walk_result {
    uint64_t events = 0, sum = 0;
};

static void read_args(ondemand::object args, walk_result &r)
{
    for (auto field : args) {
        std::string_view k = field.unescaped_key();
        if (k == "stream" || k == "correlation") {
            int64_t v;
            if (field.value().get_int64().get(v) == SUCCESS)
                r.sum += (uint64_t)v;
        }
    }
}

static void read_event(ondemand::object ev, walk_result &r)
{
    for (auto field : ev) {
        std::string_view k = field.unescaped_key();
        if (k == "name" || k == "cat") {
            std::string_view s;
            if (field.value().get_string().get(s) == SUCCESS)
                r.sum += s.size();
        } else if (k == "ts" || k == "dur") {
            double d;
            if (field.value().get_double().get(d) == SUCCESS)
                r.sum += (uint64_t)d;
        } else if (k == "args") {
            ondemand::object a;
            if (field.value().get_object().get(a) == SUCCESS)
                read_args(a, r);
        }
    }
    r.events++;
}

static walk_result walk(ondemand::parser &parser, const padded_string &json)
{
    walk_result r;
    ondemand::document doc = parser.iterate(json);
    for (auto top : doc.get_object()) {
        if (top.unescaped_key().value() != "traceEvents")
            continue;
        for (auto ev : top.value().get_array()) {
            ondemand::object o;
            if (ev.get_object().get(o) == SUCCESS)
                read_event(o, r);
        }
    }
    return r;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        std::fprintf(stderr, "usage: simdjson_walk FILE\n");
        return 2;
    }
    try {
        padded_string json = padded_string::load(argv[1]);
        ondemand::parser parser;
        walk_result r = walk(parser, json);
        std::vector<double> t;
        for (int i = 0; i < 5; i++) {
            auto t0 = std::chrono::steady_clock::now();
            r = walk(parser, json);
            t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
        }
        std::sort(t.begin(), t.end());
        std::printf("simdjson %zu %.4f %llu %llu\n", json.size(), t[t.size() / 2],
                    (unsigned long long)r.events, (unsigned long long)r.sum);
    } catch (const simdjson_error &e) {
        std::fprintf(stderr, "%s: %s\n", argv[1], e.what());
        return 1;
    }
    return 0;
}
