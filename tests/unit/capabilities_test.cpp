// Capabilities::from_identity (algorithms/core/pure/capabilities.cpp): what is decided from the
// library's identity string because trying it is not safe.
#include <gtest/gtest.h>

#include "collrepro/capabilities.hpp"

using collrepro::Capabilities;

TEST(CapabilitiesFromIdentity, Mpich402HasTheTypedIntercommunicatorAllgatherFault) {
  const auto c = Capabilities::from_identity("MPICH Version:\t4.0.2\nMPICH Release date:\tThu Apr  7 2022\n");
  EXPECT_FALSE(c.inter_typed);
  EXPECT_NE(c.calls_reason.find("struct"), std::string::npos);
  EXPECT_TRUE(c.intercomm);  // everything else is probed
}

TEST(CapabilitiesFromIdentity, OtherReleasesAndLibrariesAreTried) {
  for (const char* identity : {"MPICH Version:\t3.4.1\n", "MPICH Version:      4.0.20\n", "MPICH Version:\t4.1.2\n",
                               "Open MPI v4.1.4, package: Debian OpenMPI, ident: 4.1.4", "Open MPI v5.0.7", ""}) {
    const auto c = Capabilities::from_identity(identity);
    EXPECT_TRUE(c.inter_typed) << identity;
    EXPECT_TRUE(c.calls_reason.empty()) << identity;
  }
}

TEST(CapabilitiesFromIdentity, SimGridTriesNothing) {
  const auto c = Capabilities::from_identity("SimGrid SMPI 3.32");
  EXPECT_TRUE(c.simulated_clock);
  EXPECT_FALSE(c.intercomm);
  EXPECT_TRUE(c.inter_typed);
}
