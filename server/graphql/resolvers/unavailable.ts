/**
 * The GTFS GraphQL API's root fields for data this service does not hold (vehicle rental, bike and
 * car parks, vehicle parking, ride hailing, fare ticket types): a list field answers an empty list
 * and a single-entity field null, as the schema allows; docs/api-graphql.md lists them.
 */
const none = () => null;
const empty = () => [];

export const unavailableRoots = {
  bikePark: none,
  bikeParks: empty,
  bikeRentalStation: none,
  bikeRentalStations: empty,
  carPark: none,
  carParks: empty,
  rentalVehicle: none,
  rentalVehicles: empty,
  vehicleParking: none,
  vehicleParkings: empty,
  vehicleRentalStation: none,
  vehicleRentalStations: empty,
  vehicleRentalsByBbox: empty,
  ticketTypes: empty,
};
