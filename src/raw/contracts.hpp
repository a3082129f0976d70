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

// One row of pdr_contracts (lake::kContractsTable). Pair, timeframe and source come from the data
// NFT's nftData values under lake::kNftDataKeys; a field the NFT does not give (real mainnet
// tokens often have `nft: null`) falls back, one field at a time, to what the subgraph does carry:
// pair = `token.name`, timeframe = `secondsPerEpoch` (300 = 5m, 3600 = 1h, anything else stays
// unknown), source = the configured fallback (lake_ss.feed_source). `metadata_from` records where
// each field came from (MetadataFrom).
struct Contract {
  std::string id;                                      // lower-case 0x address
  std::optional<std::string> pair, timeframe, source;  // nullopt when nothing gives the field
  int64_t seconds_per_epoch = 0;
  int64_t trueval_submit_timeout = 0;
  std::string metadata_from;  // "nft", or e.g. "pair=token.name timeframe=secondsPerEpoch ..."
  // Why the contract is not a usable feed yet (secondsPerEpoch 0 before its settings event is
  // indexed, no pair or timeframe after the fallback); empty when it is. An unusable contract is
  // not stored in pdr_contracts; a later fetch picks it up once it is complete.
  std::string unusable;
};

// Where a field of a contract's metadata came from.
enum class MetadataOrigin { kNft, kTokenName, kSecondsPerEpoch, kConfig, kMissing };
std::string_view MetadataOriginName(MetadataOrigin origin);  // "nft", "token.name", ...

// "nft" when all three came from the NFT, else "pair=<origin> timeframe=<origin> source=<origin>".
std::string MetadataFrom(MetadataOrigin pair, MetadataOrigin timeframe, MetadataOrigin source);

// The timeframe of an epoch length: 300 -> "5m", 3600 -> "1h"; nullopt for anything else (no
// other timeframe is deployed, and guessing one would file the feed's rows under a wrong name).
std::optional<std::string> TimeframeOfEpoch(int64_t seconds_per_epoch);

// The source used when a feed's NFT does not name one (the lake_ss.feed_source default).
inline constexpr std::string_view kDefaultFeedSource = "binance";

using ContractMap = std::map<std::string, Contract, std::less<>>;  // by id

// The longest pair, timeframe or source a feed may have (real ones are a dozen bytes).
inline constexpr size_t kMaxFeedFieldBytes = 64;
// Why `text` cannot be a feed's pair, timeframe or source ("is not valid UTF-8", "is N bytes long
// ...", "holds a control character"), or "" when it can. FetchContracts sets a contract aside
// (Contract::unusable) with such a field, which it drops, so that its events are stored without it.
std::string UnstorableText(std::string_view text);

// Decodes a hex-encoded UTF-8 value ("0x4254432f55534454" -> "BTC/USDT"); nullopt when `hex` is not
// 0x followed by an even number of hex digits.
std::optional<std::string> DecodeHexText(std::string_view hex);

// Reads every predictContract (paged by id) with its NFT data decoded and the fallback applied
// (`fallback_source` for a missing source). Contracts that are not usable feeds are returned too,
// with `unusable` set, so that the caller can warn and record them. A malformed record is a
// kSource error naming the contract id.
Result<ContractMap> FetchContracts(gql::Client& client,
                                   std::string_view fallback_source = kDefaultFeedSource);

// Replaces the snapshot in pdr_contracts (upsert by id) with the usable contracts; unusable ones
// are left out, so that an incomplete snapshot never overwrites a complete row. Runs in the
// caller's transaction.
Status StoreContracts(duck::Connection& conn, const ContractMap& contracts);

// The longest time a slot keeps changing after it starts: max(secondsPerEpoch +
// truevalSubmitTimeout) over the usable contracts, in ms (0 for none).
int64_t MaxSlotSettleMs(const ContractMap& contracts);

}  // namespace predlake::raw
