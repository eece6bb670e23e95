// Delay mode (interpose/delay.hpp): the COLLREPRO_PMPI_DELAY parser and what the settings make of
// it, without MPI calls.
#include <gtest/gtest.h>

#include <cstdlib>

#include "delay.hpp"
#include "settings.hpp"

namespace collrepro::pmpi {
namespace {

std::string parse_error(const std::string& text) {
  try {
    parse_delay(text);
  } catch (const DelayError& e) {
    return e.what();
  }
  return "";
}

TEST(Delay, ParsesCallsSizesAndPercent) {
  const auto rules = parse_delay("allgather:>=64KiB:+10%, allgatherv:<=1024:+2.5% ;neighbor-alltoall:*:+50%;"
                                 "neighbor_alltoallv:1KiB..1MiB:+100%,allgather:4096:+25%");
  ASSERT_EQ(rules.size(), 5u);
  EXPECT_EQ(rules[0].call, DelayCall::Allgather);
  EXPECT_EQ(rules[0].min_bytes, 65536u);
  EXPECT_EQ(rules[0].max_bytes, static_cast<std::size_t>(-1));
  EXPECT_DOUBLE_EQ(rules[0].fraction, 0.10);
  EXPECT_EQ(rules[1].call, DelayCall::Allgatherv);
  EXPECT_EQ(rules[1].min_bytes, 0u);
  EXPECT_EQ(rules[1].max_bytes, 1024u);
  EXPECT_DOUBLE_EQ(rules[1].fraction, 0.025);
  EXPECT_EQ(rules[2].call, DelayCall::NeighborAlltoall);
  EXPECT_EQ(rules[3].call, DelayCall::NeighborAlltoallv);
  EXPECT_EQ(rules[3].min_bytes, 1024u);
  EXPECT_EQ(rules[3].max_bytes, 1048576u);
  EXPECT_EQ(rules[4].min_bytes, 4096u);
  EXPECT_EQ(rules[4].max_bytes, 4096u);
  EXPECT_TRUE(parse_delay("").empty());
  EXPECT_TRUE(parse_delay("  ").empty());
}

TEST(Delay, FirstMatchingRuleWins) {
  const auto rules = parse_delay("allgather:>=1MiB:+25%,allgather:>=64KiB:+10%,allgatherv:*:+5%");
  EXPECT_EQ(find_delay(rules, DelayCall::Allgather, 65535), nullptr);
  ASSERT_NE(find_delay(rules, DelayCall::Allgather, 65536), nullptr);
  EXPECT_DOUBLE_EQ(find_delay(rules, DelayCall::Allgather, 65536)->fraction, 0.10);
  EXPECT_DOUBLE_EQ(find_delay(rules, DelayCall::Allgather, 1 << 20)->fraction, 0.25);
  EXPECT_DOUBLE_EQ(find_delay(rules, DelayCall::Allgatherv, 0)->fraction, 0.05);
  EXPECT_EQ(find_delay(rules, DelayCall::NeighborAlltoall, 1 << 20), nullptr);
}

TEST(Delay, ParsesFixedTimes) {
  const auto rules = parse_delay("allgather:>=128KiB:+5ms,allgatherv:*:+250us,neighbor_alltoall:*:+1.5ms");
  ASSERT_EQ(rules.size(), 3u);
  EXPECT_DOUBLE_EQ(rules[0].seconds, 0.005);
  EXPECT_DOUBLE_EQ(rules[0].fraction, 0.0);
  EXPECT_DOUBLE_EQ(rules[1].seconds, 250e-6);
  EXPECT_DOUBLE_EQ(rules[2].seconds, 1.5e-3);
  EXPECT_DOUBLE_EQ(parse_delay("allgather:*:+10%")[0].seconds, 0.0);
  EXPECT_DOUBLE_EQ(parse_delay("allgather:*:+1000ms")[0].seconds, 1.0);
}

TEST(Delay, RefusesMalformedRulesInOneLine) {
  EXPECT_NE(parse_error("allgather:*:+0ms").find("above 0 and at most 1 s"), std::string::npos);
  EXPECT_NE(parse_error("allgather:*:+1001ms").find("at most 1 s"), std::string::npos);
  EXPECT_NE(parse_error("allgather:*:+5s").find("+Nus or +Nms"), std::string::npos);
  EXPECT_NE(parse_error("allgather:*:+ms").find("+Nus or +Nms"), std::string::npos);
  EXPECT_NE(parse_error("allgather:*:5ms").find("+Nus or +Nms"), std::string::npos);
  EXPECT_NE(parse_error("allgather:>=64KiB").find("want CALL:SIZE:+N%"), std::string::npos);
  EXPECT_NE(parse_error("bcast:*:+10%").find("unknown call 'bcast'"), std::string::npos);
  EXPECT_NE(parse_error("allgather:>=64kb:+10%").find("unknown unit"), std::string::npos);
  EXPECT_NE(parse_error("allgather:>=x:+10%").find("not a whole number"), std::string::npos);
  EXPECT_NE(parse_error("allgather:*:10%").find("write +N%"), std::string::npos);
  EXPECT_EQ(parse_delay("allgather:*:+0%")[0].fraction, 0.0);   // the placebo: timed, nothing added
  EXPECT_NE(parse_error("allgather:*:+-0%").find("write +N%"), std::string::npos);
  EXPECT_NE(parse_error("allgather:*:+1001%").find("to +1000%"), std::string::npos);
  EXPECT_NE(parse_error("allgather:*:+-5%").find("write +N%"), std::string::npos);
  EXPECT_NE(parse_error("allgather:1MiB..1KiB:+5%").find("is empty"), std::string::npos);
  EXPECT_NE(parse_error("allgather:*:+5%,,allgatherv:*:+5%").find("an empty rule"), std::string::npos);
  EXPECT_NE(parse_error("allgather:*:+5%;").find("an empty rule"), std::string::npos);
  EXPECT_NE(parse_error(std::string(5000, 'a')).find("over the limit"), std::string::npos);
  const std::string long_rule = "allgather:*:+" + std::string(3000, '9') + "%";
  const std::string e = parse_error(long_rule);
  EXPECT_LT(e.size(), 300u) << e;  // quotes an excerpt, not the whole input
  EXPECT_EQ(e.find('\n'), std::string::npos);
}

struct Env {
  Env(const char* name, const char* value) : name_(name) { setenv(name, value, 1); }
  ~Env() { unsetenv(name_); }
  const char* name_;
};

TEST(Delay, AloneItNeverTurnsReplacementOn) {
  {
    Env delay("COLLREPRO_PMPI_DELAY", "allgather:>=64KiB:+10%");
    const Settings s = settings_from_environment(RulesFile{});
    EXPECT_FALSE(s.enabled);  // every call goes to the MPI library ...
    EXPECT_TRUE(s.error.empty());
    EXPECT_TRUE(s.delays(DelayCall::Allgather));  // ... and the delay still applies
    EXPECT_FALSE(s.delays(DelayCall::Allgatherv));
  }
  {
    Env delay("COLLREPRO_PMPI_DELAY", "allgather:*:+10%");
    Env force("COLLREPRO_PMPI_FORCE", "native");
    EXPECT_TRUE(settings_from_environment(RulesFile{}).enabled);  // asked for explicitly
  }
  {
    Env delay("COLLREPRO_PMPI_DELAY", "allgatherv:*:+10%");
    Env disable("COLLREPRO_PMPI_DISABLE", "1");  // as derived installations set it
    const Settings s = settings_from_environment(RulesFile{});
    EXPECT_FALSE(s.enabled);
    EXPECT_TRUE(s.delays(DelayCall::Allgatherv));  // the delay stays on
  }
  const Settings unset = settings_from_environment(RulesFile{});
  EXPECT_TRUE(unset.enabled);  // no change when the variable is unset
  EXPECT_TRUE(unset.delay.empty());
  EXPECT_EQ(unset.delayed_calls, 0u);
}

TEST(Delay, AMalformedVariableIsNamedWithTheFix) {
  Env delay("COLLREPRO_PMPI_DELAY", "allgather:>=64KiB:10%");
  const Settings s = settings_from_environment(RulesFile{});
  EXPECT_NE(s.delay_error.find("COLLREPRO_PMPI_DELAY='allgather:>=64KiB:10%'"), std::string::npos) << s.delay_error;
  EXPECT_NE(s.delay_error.find("fix it or unset the variable"), std::string::npos) << s.delay_error;
  EXPECT_TRUE(s.delay.empty());
}

}  // namespace
}  // namespace collrepro::pmpi
