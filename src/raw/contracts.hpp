// The feeds (prediction contracts) and the subgraph's indexed head, read once per run.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "common/status.hpp"
#include "duck/duck.hpp"
#include "source/gql/client.hpp"

namespace predlake::raw {

// One row of pdr_contracts (lake::kContractsTable); pair, timeframe and source come from the
// data NFT's nftData values under lake::kNftDataKeys.
struct Contract {
  std::string id;                                      // lower-case 0x address
  std::optional<std::string> pair, timeframe, source;  // nullopt when the NFT lacks the key
  int64_t seconds_per_epoch = 0;
  int64_t trueval_submit_timeout = 0;
};

using ContractMap = std::map<std::string, Contract, std::less<>>;  // by id

// Decodes a hex-encoded UTF-8 value ("0x4254432f55534454" -> "BTC/USDT"); nullopt when `hex` is not
// 0x followed by an even number of hex digits.
std::optional<std::string> DecodeHexText(std::string_view hex);

// Reads every predictContract (paged by id) with its NFT data decoded. A malformed record is a
// kSource error naming the contract id.
Result<ContractMap> FetchContracts(gql::Client& client);

// Replaces the snapshot in pdr_contracts (upsert by id). Runs in the caller's transaction.
Status StoreContracts(duck::Connection& conn, const ContractMap& contracts);

// The longest time a slot keeps changing after it starts: max(secondsPerEpoch +
// truevalSubmitTimeout) over the contracts, in ms (0 for none).
int64_t MaxSlotSettleMs(const ContractMap& contracts);

}  // namespace predlake::raw
