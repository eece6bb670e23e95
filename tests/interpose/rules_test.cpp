// The selection rules (interpose/rules.hpp), the settings read from memory (settings.hpp) and
// the ring-offset pairing of distributed graphs (interpose/iso_topology.hpp), without MPI calls.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "iso_topology.hpp"
#include "rules.hpp"
#include "settings.hpp"

namespace collrepro::pmpi {
namespace {

Query inter_query(Collective c, int p, int q, bool half, std::size_t size) {
  Query query;
  query.collective = c;
  query.larger = std::max(p, q);
  query.smaller = std::min(p, q);
  query.half_duplex = half;
  query.msg_size = size;
  return query;
}

TEST(Rules, FirstMatchInFileOrderAndSizeRanges) {
  const auto rules = Rules::parse(R"({
    "collective=allgather": {
      "groups=3:5": {
        "duplex=half": {"any": {"algorithm=halfduplex-fc": {}}},
        "msg_size<=1024": {"algorithm=fullduplex-allgather": {}},
        "msg_size>1024": {"algorithm=root-gathering": {}}
      },
      "any": {"algorithm=native": {}}
    }
  })");
  EXPECT_EQ(rules.select(inter_query(Collective::Allgather, 5, 3, true, 8)), "halfduplex-fc");
  EXPECT_EQ(rules.select(inter_query(Collective::Allgather, 3, 5, false, 1024)), "fullduplex-allgather");
  EXPECT_EQ(rules.select(inter_query(Collective::Allgather, 5, 3, false, 1025)), "root-gathering");
  EXPECT_EQ(rules.select(inter_query(Collective::Allgather, 4, 4, false, 8)), "native");
  EXPECT_EQ(rules.select(inter_query(Collective::Allgatherv, 5, 3, false, 8)), std::nullopt);
}

// The volume-minimal variant is a registered, servable name: a rules file can choose it beside
// the paper's algorithm (here by message size, at the 12:4 half-duplex shape of issue #27).
TEST(Rules, SelectsTheVolumeMinimalVariant) {
  const auto rules = Rules::parse(R"({
    "collective=allgather": {
      "groups=12:4": {"duplex=half": {
        "msg_size>262144": {"algorithm=halfduplex-fc-minvol": {}},
        "any": {"algorithm=halfduplex-fc": {}}}},
      "any": {"algorithm=native": {}}
    }
  })");
  EXPECT_EQ(rules.select(inter_query(Collective::Allgather, 12, 4, true, std::size_t{4} << 20)),
            "halfduplex-fc-minvol");
  EXPECT_EQ(rules.select(inter_query(Collective::Allgather, 12, 4, true, 262144)), "halfduplex-fc");
  EXPECT_EQ(rules.select(inter_query(Collective::Allgather, 12, 4, false, std::size_t{4} << 20)), "native");
  // Registered for allgather only.
  EXPECT_THROW(Rules::parse(R"({"collective=allgatherv": {"algorithm=halfduplex-fc-minvol": {}}})"), RulesError);
}

// senders=N tells the two orientations of one groups=P:Q apart (issue #27: minvol is faster when
// the larger group sends, slower when the smaller one does). The query's sending group comes
// from the call's global shape, as interpose/intergroup_calls.cpp builds it.
Query sending_query(int p, int q, std::size_t ka, std::size_t kb) {
  Query query = inter_query(Collective::Allgather, p, q, ka == 0 || kb == 0, std::max(ka, kb));
  query.senders = sending_group(p, q, static_cast<std::size_t>(p) * ka, static_cast<std::size_t>(q) * kb);
  return query;
}

TEST(Rules, SendersTellsTheOrientationsApart) {
  const auto rules = Rules::parse(R"({
    "collective=allgather": {
      "groups=12:4": {
        "senders=12": {"algorithm=halfduplex-fc-minvol": {}},
        "senders=4": {"algorithm=halfduplex-fc": {}},
        "any": {"algorithm=fullduplex-allgather": {}}
      }
    }
  })");
  const std::size_t k = std::size_t{1} << 20;
  EXPECT_EQ(rules.select(sending_query(12, 4, k, 0)), "halfduplex-fc-minvol");  // A (12) sends
  EXPECT_EQ(rules.select(sending_query(4, 12, 0, k)), "halfduplex-fc-minvol");  // B (12) sends
  EXPECT_EQ(rules.select(sending_query(4, 12, k, 0)), "halfduplex-fc");         // A (4) sends
  EXPECT_EQ(rules.select(sending_query(12, 4, 0, k)), "halfduplex-fc");         // B (4) sends
  // Full duplex and nobody sending: senders= never matches, the next branch does.
  EXPECT_EQ(rules.select(sending_query(12, 4, k, k)), "fullduplex-allgather");
  EXPECT_EQ(rules.select(sending_query(12, 4, 0, 0)), "fullduplex-allgather");
  Query stale = sending_query(12, 4, k, k);  // a full-duplex query with a sender count set
  stale.senders = 12;
  EXPECT_EQ(rules.select(stale), "fullduplex-allgather");
  // Another shape: no senders= branch applies.
  EXPECT_EQ(rules.select(sending_query(5, 3, k, 0)), std::nullopt);
}

TEST(Rules, SendingGroupNeedsExactlyOneGroupSending) {
  EXPECT_EQ(sending_group(12, 4, 12 * 64, 0), 12);
  EXPECT_EQ(sending_group(12, 4, 0, 4 * 64), 4);
  EXPECT_EQ(sending_group(12, 4, 64, 64), 0);
  EXPECT_EQ(sending_group(12, 4, 0, 0), 0);
  // Allgatherv: one sender of three with a block is enough; the totals are global.
  EXPECT_EQ(sending_group(3, 1, 7, 0), 3);
}

TEST(Rules, RefusesABadSendersValueInOneLine) {
  for (const char* value : {"0", "-4", "+4", " 4", "4x", "", "3:1", "99999999999", "999999999999999999999999"}) {
    const std::string text =
        std::string(R"({"collective=allgather": {"groups=3:1": {"senders=)") + value + R"(": {"algorithm=native": {}}}}})";
    try {
      Rules::parse(text);
      ADD_FAILURE() << "accepted senders=" << value;
    } catch (const RulesError& e) {
      const std::string line = e.what();
      EXPECT_EQ(line.find('\n'), std::string::npos) << line;
      EXPECT_NE(line.find("senders="), std::string::npos) << line;
      EXPECT_NE(line.find("is not a process count"), std::string::npos) << line;
      EXPECT_LE(line.size(), 320u) << line;
    }
  }
  EXPECT_NO_THROW(Rules::parse(R"({"senders=2147483647": {"algorithm=native": {}}})"));
}

// call= chooses per call form (MPI_Allgather, MPI_Iallgather, MPI_Allgather_init); a tree
// without call= matches every form, as before the condition existed.
Query form_query(CallForm form, std::size_t size) {
  Query query = inter_query(Collective::Allgather, 3, 1, true, size);
  query.call = form;
  return query;
}

TEST(Rules, CallChoosesPerForm) {
  const auto rules = Rules::parse(R"({
    "collective=allgather": {
      "call=persistent": {"msg_size<=65536": {"algorithm=halfduplex-fc": {}}, "any": {"algorithm=native": {}}},
      "call=nonblocking": {"algorithm=halfduplex-fc-minvol": {}},
      "any": {"algorithm=root-gathering": {}}
    }
  })");
  EXPECT_EQ(rules.select(form_query(CallForm::Persistent, 65536)), "halfduplex-fc");
  EXPECT_EQ(rules.select(form_query(CallForm::Persistent, 65537)), "native");
  EXPECT_EQ(rules.select(form_query(CallForm::Nonblocking, 65537)), "halfduplex-fc-minvol");
  EXPECT_EQ(rules.select(form_query(CallForm::Blocking, 8)), "root-gathering");
  // Without call=, every form matches.
  const auto any_form = Rules::parse(R"({"collective=allgather": {"algorithm=halfduplex-fc": {}}})");
  for (CallForm form : contract::all<CallForm>()) EXPECT_EQ(any_form.select(form_query(form, 8)), "halfduplex-fc");
  // call= under groups=, as colltune writes it, and the default query (a blocking call).
  const auto nested = Rules::parse(R"({"collective=allgather": {"groups=3:1": {"duplex=half": {
      "call=blocking": {"algorithm=root-gathering": {}}}}}})");
  EXPECT_EQ(nested.select(inter_query(Collective::Allgather, 3, 1, true, 8)), "root-gathering");
  EXPECT_EQ(nested.select(form_query(CallForm::Persistent, 8)), std::nullopt);
}

TEST(Rules, RefusesABadCallValueInOneLine) {
  for (const char* value : {"", "Persistent", "blocking ", "i", "persistent,blocking", "nonblocking\\u0001"}) {
    const std::string text =
        std::string(R"({"collective=allgather": {"call=)") + value + R"(": {"algorithm=native": {}}}})";
    try {
      Rules::parse(text);
      ADD_FAILURE() << "accepted call=" << value;
    } catch (const RulesError& e) {
      const std::string line = e.what();
      EXPECT_EQ(line.find('\n'), std::string::npos) << line;
      EXPECT_NE(line.find("/collective=allgather/call="), std::string::npos) << line;
      EXPECT_NE(line.find("is not a call form (blocking, nonblocking or persistent)"), std::string::npos) << line;
    }
  }
  try {
    Rules::parse(R"({"call<=persistent": {"algorithm=native": {}}})");
    ADD_FAILURE() << "accepted call<=";
  } catch (const RulesError& e) {
    EXPECT_NE(std::string(e.what()).find("unknown condition (use collective=, call=,"), std::string::npos) << e.what();
  }
}

TEST(Rules, BacktracksWhenASubtreeHasNoMatch) {
  const auto rules = Rules::parse(R"({
    "collective=allgather": {"msg_size<=8": {"groups=2:1": {"algorithm=root-gathering": {}}}},
    "any": {"algorithm=native": {}}
  })");
  EXPECT_EQ(rules.select(inter_query(Collective::Allgather, 7, 1, false, 4)), "native");
  EXPECT_EQ(rules.select(inter_query(Collective::Allgather, 1, 2, false, 4)), "root-gathering");
}

TEST(Rules, NeighbourhoodsMatchInAnyOffsetOrder) {
  const auto rules = Rules::parse(R"({"collective=neighbor-alltoall": {
    "neighborhood=vonneumann:d=2,r=1": {"algorithm=torus": {}}}})");
  Query q;
  q.collective = Collective::NeighborAlltoall;
  q.offsets = sorted_offsets({{-1, 0}, {1, 0}, {0, -1}, {0, 1}});  // a Cartesian communicator's order
  EXPECT_EQ(rules.select(q), "torus");
  q.offsets = sorted_offsets({{-1, 0}, {1, 0}});
  EXPECT_EQ(rules.select(q), std::nullopt);
}

TEST(Rules, RejectsWhatCannotBeRun) {
  for (const char* bad : {R"({"collective=allgather": {"algorithm=torus": {}}})",
                          R"({"collective=neighbor-allgather": {"algorithm=mpi-neighbor": {}}})",
                          R"({"groups=0:3": {"algorithm=native": {}}})", R"({"neighborhood=moore:d=0": {}})",
                          R"({"msg_size<=-1": {}})", R"({"msg_size>=4": {}})", R"({})", R"("text")"})
    EXPECT_THROW(Rules::parse(bad), RulesError) << bad;
}

// ---- The caps: each refusal is its own single, short line ------------------------------------

// The message of the RulesError that parsing `text` throws ("" when it parses).
std::string parse_error(const std::string& text) {
  try {
    Rules::parse(text);
  } catch (const RulesError& e) {
    return e.what();
  }
  return "";
}

// One line, short whatever the input's size.
void expect_one_short_line(const std::string& message, std::size_t limit = 320) {
  EXPECT_FALSE(message.empty());
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  EXPECT_LE(message.size(), limit) << message;
}

// {"any": {"any": ... {"algorithm=native": {}}}}: `objects` objects nested, the leaf's {} included.
std::string nested(std::size_t objects) {
  std::string text;
  for (std::size_t i = 0; i + 2 < objects; ++i) text += "{\"any\": ";
  text += "{\"algorithm=native\": {}}";
  for (std::size_t i = 0; i + 2 < objects; ++i) text += "}";
  return text;
}

TEST(RulesCaps, TextOverTheSizeCap) {
  std::string text = R"({"any": {"algorithm=native": {}}})";
  text.resize(kMaxRulesBytes + 1, ' ');  // valid JSON, one byte too long
  const std::string e = parse_error(text);
  expect_one_short_line(e);
  EXPECT_NE(e.find("4194305 bytes, over the 4 MiB limit"), std::string::npos) << e;
  text.resize(kMaxRulesBytes);
  EXPECT_EQ(parse_error(text), "");
}

TEST(RulesCaps, NestingDepth) {
  EXPECT_EQ(parse_error(nested(kMaxRulesDepth)), "");
  EXPECT_EQ(Rules::parse(nested(kMaxRulesDepth)).select(Query{}), "native");
  const std::string e = parse_error(nested(kMaxRulesDepth + 1));
  expect_one_short_line(e);
  EXPECT_NE(e.find("nested deeper than 32 levels"), std::string::npos) << e;
  EXPECT_NE(e.find("at /any/any/"), std::string::npos) << e;
  // Arrays count too, and a deep one stops at the cap, not at the end of the input.
  const std::string arrays = "{\"any\": " + std::string(1000000, '[');
  EXPECT_NE(parse_error(arrays).find("nested deeper than 32 levels"), std::string::npos);
}

TEST(RulesCaps, KeyLength) {
  const std::string at_cap(kMaxRulesKeyBytes, 'k');  // a key at the cap is read, then checked
  EXPECT_NE(parse_error("{\"" + at_cap + "\": {}}").find("unknown condition"), std::string::npos);
  const std::string e = parse_error("{\"collective=allgather\": {\"" + std::string(1 << 20, 'k') + "\": {}}}");
  expect_one_short_line(e, 200);
  EXPECT_NE(e.find("at /collective=allgather: a key of 1048576 bytes ('kkkk"), std::string::npos) << e;
  EXPECT_NE(e.find("over the limit of 65536 bytes for one key"), std::string::npos) << e;
}

TEST(RulesCaps, KeyCount) {
  std::string text = "{\"collective=allgather\": {";
  for (std::size_t i = 0; i < kMaxRulesKeys; ++i) text += "\"msg_size<=" + std::to_string(i) + "\": {},";
  text += "\"any\": {}}}";
  const std::string e = parse_error(text);
  expect_one_short_line(e);
  EXPECT_NE(e.find("more than 100000 keys (at /collective=allgather)"), std::string::npos) << e;
}

TEST(RulesCaps, DifferentNeighbourhoods) {
  std::string text = "{\"collective=neighbor-alltoall\": {";
  for (std::size_t i = 1; i <= kMaxRulesNeighborhoods + 1; ++i)
    text += "\"neighborhood=list:(" + std::to_string(i) + ")\": {\"algorithm=torus\": {}},";
  text.back() = '}';
  text += "}";
  const std::string e = parse_error(text);
  expect_one_short_line(e);
  EXPECT_NE(e.find("more than 64 different neighbourhoods"), std::string::npos) << e;
  EXPECT_NE(e.find("at /collective=neighbor-alltoall/neighborhood=list:(65)"), std::string::npos) << e;
}

// Generated kinds enumerate their box ([-R, R]^d, up to 2^20 offsets each): a budget for the file.
TEST(RulesCaps, NeighbourhoodBoxes) {
  const auto shells = [](int n) {  // boxes of 1023^2 offsets, about 4100 kept
    std::string text = "{\"collective=neighbor-alltoall\": {";
    for (int i = 1; i <= n; ++i)
      text += "\"neighborhood=shells:d=2,r=" + std::to_string(i) + "+511\": {\"algorithm=torus\": {}},";
    text.back() = '}';
    return text + "}";
  };
  EXPECT_EQ(parse_error(shells(2)), "");
  const std::string e = parse_error(shells(3));
  expect_one_short_line(e);
  EXPECT_NE(e.find("at /collective=neighbor-alltoall/neighborhood=shells:d=2,r=3+511: the neighbourhoods so far span "
                   "more than 2097152 candidate offsets"),
            std::string::npos)
      << e;
}

TEST(RulesCaps, DuplicateKey) {
  const std::string e = parse_error(R"({"collective=allgather": {"any": {"algorithm=native": {}},
                                                                 "any": {"algorithm=root-gathering": {}}}})");
  EXPECT_NE(e.find("at /collective=allgather/any: this key appears twice"), std::string::npos) << e;
  // The same key in different objects is fine.
  EXPECT_EQ(parse_error(R"({"collective=allgather": {"any": {"algorithm=native": {}}},
                            "collective=allgatherv": {"any": {"algorithm=native": {}}}})"),
            "");
}

// ---- Excerpts: at most ~60 characters of any key or value in an error line --------------------

TEST(RulesExcerpt, ShortPrintableAndWhole) {
  EXPECT_EQ(excerpt("msg_size<=4k"), "msg_size<=4k");
  EXPECT_EQ(excerpt(std::string(1 << 20, 'a')), std::string(57, 'a') + "...");
  EXPECT_EQ(excerpt("a\nb\x01\xff"), "a\\x0ab\\x01\\xff");  // control bytes and bad UTF-8 escaped
  const std::string e_acute = "\xc3\xa9";
  std::string accents;
  for (int i = 0; i < 40; ++i) accents += e_acute;
  EXPECT_EQ(excerpt(accents), std::string(accents, 0, 56) + "...");  // never cuts a character
}

// The longest run of one repeated character: the inputs below repeat one character thousands of times.
std::size_t longest_run(const std::string& s) {
  std::size_t best = 0, run = 0;
  for (std::size_t i = 0; i < s.size(); ++i) best = std::max(best, run = i > 0 && s[i] == s[i - 1] ? run + 1 : 1);
  return best;
}

TEST(RulesExcerpt, ErrorLinesQuoteShortExcerpts) {
  const std::string big(60000, 'x');
  const std::string bad_list = "list:" + std::string(20000, '(') + ")";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"{\"collective=allgather\": {\"algorithm=" + big + "\": {}}}", "unknown algorithm 'xxx"},
      {"{\"collective=" + big + "\": {}}", "unknown collective 'xxx"},
      {"{\"msg_size<=" + big + "\": {}}", "is not a byte count"},
      {"{\"neighborhood=" + bad_list + "\": {}}", "bad neighbourhood '"},
      {"{\"" + big + "\": {}}", "unknown condition"},
      {"{\"any\": " + std::string(1 << 20, 't') + "}", "not valid JSON"},        // a long bad literal
      {"{\"any\": {\"" + big + "\xff\": {}}}", "not valid JSON"},                // bad UTF-8 after a long key
      {"{\"any\": \"" + std::string(1 << 20, 's') + "\n\"}", "not valid JSON"},  // a control character
      {"{\"any\": {\"groups=1:1\": {\"msg_size<=" + std::string(60000, '0') + "1\": 7}}}", "expected an object"},
  };
  for (const auto& [text, what] : cases) {
    const std::string e = parse_error(text);
    EXPECT_NE(e.find(what), std::string::npos) << e;
    expect_one_short_line(e, 400);
    EXPECT_LE(longest_run(e), kExcerptChars) << e;
  }
}

TEST(RulesExcerpt, ExistingMessagesKeepTheirWords) {
  EXPECT_NE(parse_error(R"({"collective=allgather": {"algorithm=torus": {}}})")
                .find("at /collective=allgather/algorithm=torus: unknown algorithm 'torus' for allgather"),
            std::string::npos);
  EXPECT_NE(parse_error(R"({"collective=allgather": {"msg_size<=4k": {}}})")
                .find("at /collective=allgather/msg_size<=4k: '4k' is not a byte count"),
            std::string::npos);
  EXPECT_NE(parse_error(R"({"collective=allgather": )").find("not valid JSON: [json.exception.parse_error"),
            std::string::npos);
  EXPECT_NE(parse_error("[]").find("non-empty JSON object"), std::string::npos);
  EXPECT_NE(
      parse_error(R"({"collective=allgather": {"algorithm=native": {"any": {}}}})").find("a leaf's value must be {}"),
      std::string::npos);
  EXPECT_NE(
      parse_error(R"({"collective=allgather": 7})").find("at /collective=allgather: expected an object of conditions"),
      std::string::npos);
}

// ---- A file near every cap parses, and selects right -----------------------------------------

// Just under kMaxRulesBytes, exactly kMaxRulesKeys keys, objects nested kMaxRulesDepth deep, a
// key of almost kMaxRulesKeyBytes and kMaxRulesNeighborhoods neighbourhoods.
std::string near_the_caps(std::size_t groups) {
  std::string text = "{\"collective=neighbor-alltoall\": {\n";
  std::size_t keys = 1;
  std::string long_list = "neighborhood=list:(1)";
  for (int i = 2; long_list.size() + 16 < kMaxRulesKeyBytes; ++i) long_list += ",(" + std::to_string(i) + ")";
  text += " \"" + long_list + "\": {\"algorithm=straightforward\": {}},\n";
  keys += 2;
  for (std::size_t n = 2; n <= kMaxRulesNeighborhoods; ++n) {
    text +=
        " \"neighborhood=list:(" + std::to_string(n) + "),(-" + std::to_string(n) + ")\": {\"algorithm=torus\": {}},\n";
    keys += 2;
  }
  text += " \"any\": {\"algorithm=native\": {}}},\n\"collective=allgather\": {\n";
  keys += 3;
  for (std::size_t g = 1; g <= groups; ++g) {  // 1 + 3 * 4 keys a group
    text += " \"groups=" + std::to_string(g) + ":1\": {";
    for (int s = 1; s <= 3; ++s)
      text += "\"msg_size<=" + std::to_string(g * 10 + s) +
              "\": {\"algorithm=" + (s == 2 ? "fullduplex-allgather" : "root-gathering") + "\": {}}, ";
    text += "\"any\": {\"algorithm=native\": {}}},\n";
    keys += 9;
  }
  text += " \"any\": ";  // the rest: a chain of "any" as deep as the cap allows, then filler leaves
  keys += 1;
  const std::size_t chain = kMaxRulesDepth - 4;  // root, collective=allgather, any, ..., the leaf's {}
  for (std::size_t i = 0; i < chain; ++i) text += "{\"any\": ";
  keys += chain;
  text += "{";
  // Filler keys, zero-padded so that the text ends just under the size cap.
  const std::size_t room = kMaxRulesBytes - 64 - chain - text.size(), left = kMaxRulesKeys - 1 - keys;
  const std::size_t width = room / left - std::string("\"msg_size>\": {},").size();
  while (keys + 1 < kMaxRulesKeys) {
    const std::string n = std::to_string(keys);
    text += "\"msg_size>" + std::string(width > n.size() ? width - n.size() : 0, '0') + n + "\": {},";
    ++keys;
  }
  text += "\"algorithm=native\": {}}";
  ++keys;
  text += std::string(chain, '}') + "}}";
  EXPECT_EQ(keys, kMaxRulesKeys);
  EXPECT_LE(text.size(), kMaxRulesBytes);
  text.resize(kMaxRulesBytes - 1, ' ');  // whitespace up to the cap
  return text;
}

TEST(RulesCaps, AFileNearEveryCapParsesAndSelects) {
  const std::string text = near_the_caps(9000);
  const auto start = std::chrono::steady_clock::now();
  const Rules rules = Rules::parse(text);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::cout << "parsed " << text.size() << " bytes, " << kMaxRulesKeys << " keys in " << s << " s (not asserted)\n";
  EXPECT_EQ(rules.select(inter_query(Collective::Allgather, 1, 1, false, 11)), "root-gathering");
  EXPECT_EQ(rules.select(inter_query(Collective::Allgather, 4567, 1, false, 45672)), "fullduplex-allgather");
  EXPECT_EQ(rules.select(inter_query(Collective::Allgather, 1, 9000, false, 90004)), "native");
  EXPECT_EQ(rules.select(inter_query(Collective::Allgather, 9001, 1, false, 8)), "native");  // the deep chain
  EXPECT_EQ(rules.select(inter_query(Collective::Allgatherv, 5, 3, false, 8)), std::nullopt);
  Query q;
  q.collective = Collective::NeighborAlltoall;
  q.offsets = sorted_offsets({{64}, {-64}});
  EXPECT_EQ(rules.select(q), "torus");
  q.offsets = sorted_offsets({{2}, {1}});
  EXPECT_EQ(rules.select(q), "native");
  q.offsets.clear();
  for (int i = 1; i < 4000; ++i) q.offsets.push_back({i});
  EXPECT_EQ(rules.select(q), "native");  // the long list has more offsets than these
}

// ---- Files: the size is checked before reading; settings parse what rank 0 read ---------------

struct TempDir {
  std::filesystem::path path =
      std::filesystem::temp_directory_path() / ("collrepro-rules-test-" + std::to_string(::getpid()));
  TempDir() { std::filesystem::create_directories(path); }
  ~TempDir() { std::filesystem::remove_all(path); }
  std::string file(const std::string& name, const std::string& text) const {
    std::ofstream(path / name, std::ios::binary) << text;
    return (path / name).string();
  }
};

std::string read_error(const std::string& path) {
  try {
    Rules::read_file(path);
  } catch (const RulesError& e) {
    return e.what();
  }
  return "";
}

TEST(RulesFile, OversizedMissingAndDirectory) {
  TempDir dir;
  const std::string big = dir.file("big.json", "{}");
  std::filesystem::resize_file(big, 100u << 20);  // sparse: refused by its size, never read
  const std::string e = read_error(big);
  expect_one_short_line(e, 200);
  EXPECT_EQ(e, big + " is 104857600 bytes, over the 4 MiB limit (trim it; colltune writes far less)");
  EXPECT_NE(read_error((dir.path / "missing.json").string())
                .find("': No such file or directory (check COLLREPRO_PMPI_RULES)"),
            std::string::npos);
  EXPECT_NE(read_error(dir.path.string()).find("Is a directory"), std::string::npos);
  const std::string good = dir.file("good.json", R"({"any": {"algorithm=native": {}}})");
  EXPECT_EQ(Rules::read_file(good), R"({"any": {"algorithm=native": {}}})");
  EXPECT_NE(std::string(read_error("/dev/zero")).find("is more than 4194304 bytes, over the 4 MiB limit"),
            std::string::npos);
  // A FIFO without a writer: opening it for reading would wait for ever (rank 0 in MPI_Init,
  // every other rank in the broadcast); it is refused at once instead.
  const std::string fifo = (dir.path / "rules.fifo").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const std::string f = read_error(fifo);
  expect_one_short_line(f, 200);
  EXPECT_NE(f.find("a pipe or socket, not a regular file"), std::string::npos) << f;
}

TEST(RulesFile, SettingsParseTheTextRankZeroRead) {
  TempDir dir;
  const std::string path =
      dir.file("rules.json", R"({"collective=allgather": {"any": {"algorithm=root-gathering": {}}}})");
  ::setenv("COLLREPRO_PMPI_RULES", path.c_str(), 1);
  const RulesFile read = read_rules_file();
  ASSERT_EQ(read.state, RulesFile::State::Read);
  std::filesystem::remove(path);  // the other ranks never open the file
  const Settings s = settings_from_environment(read);
  EXPECT_TRUE(s.enabled);
  ASSERT_TRUE(s.rules);
  EXPECT_EQ(s.rules->select(inter_query(Collective::Allgather, 2, 1, false, 8)), "root-gathering");

  const std::string big = dir.file("big.json", "{}");
  std::filesystem::resize_file(big, (43u << 20) + 600000);
  ::setenv("COLLREPRO_PMPI_RULES", big.c_str(), 1);
  const RulesFile refused = read_rules_file();
  EXPECT_EQ(refused.state, RulesFile::State::Failed);
  const Settings off = settings_from_environment(refused);
  EXPECT_FALSE(off.enabled);
  EXPECT_FALSE(off.rules);
  EXPECT_EQ(off.error, "COLLREPRO_PMPI_RULES: " + big + " is " + std::to_string((43u << 20) + 600000) +
                           " bytes, over the 4 MiB limit (trim it; colltune writes far less)");

  RulesFile bad{RulesFile::State::Read, "r.json", "{\"collective=allgather\": {\"algorithm=torus\": {}}}"};
  EXPECT_NE(settings_from_environment(bad).error.find(
                "COLLREPRO_PMPI_RULES: r.json: at /collective=allgather/algorithm=torus"),
            std::string::npos);
  ::unsetenv("COLLREPRO_PMPI_RULES");
}

TEST(RingOffsets, PairsEachDestinationWithTheOppositeSource) {
  EXPECT_EQ(pair_ring_offsets({1, 2, -1}, {-1, -2, 1}, 5), (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(pair_ring_offsets({1, -1}, {1, -1}, 7), (std::vector<int>{1, 0}));
  EXPECT_EQ(pair_ring_offsets({0, 1}, {0, -1}, 3), (std::vector<int>{0, 1}));
  EXPECT_EQ(pair_ring_offsets({1, -1}, {-1, 1}, 2), std::nullopt);  // +1 and -1 are one process
  EXPECT_EQ(pair_ring_offsets({1, 2}, {-1, 1}, 5), std::nullopt);   // no source at -2
  EXPECT_EQ(pair_ring_offsets({1}, {-1, 1}, 5), std::nullopt);
}

}  // namespace
}  // namespace collrepro::pmpi
